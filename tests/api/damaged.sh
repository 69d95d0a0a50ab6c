# SPDX-License-Identifier: GPL-2.0
# damaged.sh (sourced by api.sh and example.sh): damaged_image IMG makes
# the image both run the API on: a 16 MiB metadata_csum filesystem whose
# v3 journal holds three transactions, the second data block of tid 2
# damaged (its tag checksum fails).  Needs $MKE2FS and $E2JOURNAL; exits
# the test on failure.
damaged_image() {
	"$MKE2FS" -F -q -o Linux -b 1024 -T ext4 -O metadata_csum,64bit \
		-J size=1 -E lazy_itable_init=1 "$1" 16384 >/dev/null 2>&1 ||
		{ echo "FAIL: mke2fs"; exit 1; }
	"$E2JOURNAL" write "$1" --csum v3 \
		--txn 'blocks=3000-3003:fill:0x11' \
		--txn 'blocks=3002-3005:fill:0x22' \
		--txn 'blocks=3100-3101:fill:0x33' >/dev/null &&
		"$E2JOURNAL" corrupt "$1" data --tid 2 --index 1 >/dev/null ||
		{ echo "FAIL: e2journal write/corrupt"; exit 1; }
}
