// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_fc.c: libFuzzer harness for the fast-commit scanner (fc_scan.c)
 * and its report (fc_report.c) on any bytes.  The first 8 input bytes
 * choose the block size (1024 << (data[0] % 3)), the inode size (128 or
 * 256), the expected tid (bytes 4-7), and whether the area opens with a
 * HEAD of that tid (data[1] & 1, so most inputs reach the fast commits);
 * the rest is the area (zero-padded to whole blocks, at most 8).  The
 * scan must succeed; every record it lists must lie inside its block
 * and its fast commit inside the area; the verdicts must agree with the
 * failures (a verified one has none, a failed one one); and the report
 * must be written in both forms.  The copy is exactly the area's size,
 * so ASan sees any read past it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ej_int.h"
#include "ej_fc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int bs, isz, nblk;
	struct ej_fc_scan s;
	unsigned char *area;
	__u32 tid;
	size_t i, n;
	char *out;

	if (size < 8)
		return 0;
	bs = 1024u << (data[0] % 3);
	isz = data[1] & 2 ? 256 : 128;
	memcpy(&tid, data + 4, 4);
	n = size - 8;
	nblk = n / bs + 1;
	if (nblk > 8)
		nblk = 8;
	area = calloc(nblk, bs);
	if (!area)
		return 0;
	memcpy(area, data + 8, n < (size_t)nblk * bs ? n : (size_t)nblk * bs);
	if (data[1] & 1) {
		area[0] = EJ_FC_TAG_HEAD;
		area[1] = 0;
		area[2] = EJ_FC_HEAD_LEN;
		area[3] = 0;
		memcpy(area + 8, &tid, 4);
	}
	if (ej_fc_scan(area, nblk, bs, tid, isz, &s))
		abort();
	for (i = 0; i < s.nr_recs; i++) {
		const struct ej_fc_rec *r = &s.recs[i];

		if (r->off % bs + EJ_FC_TL_LEN + r->len > bs ||
		    r->off >= (unsigned long)nblk * bs)
			abort();
	}
	for (i = 0; i < s.nr_fcs; i++) {
		const struct ej_fc_commit *c = &s.fcs[i];

		if (c->first_blk + c->nr_blks > nblk || !c->nr_blks ||
		    c->first_rec + c->nr_recs > s.nr_recs)
			abort();
		if ((c->verdict == EJ_FCV_VERIFIED) != (c->fail == EJ_FCF_NONE &&
		    c->verdict != EJ_FCV_BAD_LENGTH &&
		    c->verdict != EJ_FCV_AFTER_BAD))
			abort();
	}
	if (s.area != EJ_FCA_LIVE && s.nr_fcs)
		abort();
	if (ej_fc_report(&s, area, 0, &out))
		abort();
	free(out);
	if (ej_fc_report(&s, area, 1, &out))
		abort();
	free(out);
	ej_fc_scan_free(&s);
	free(area);
	return 0;
}
