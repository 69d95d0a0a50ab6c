# SPDX-License-Identifier: GPL-2.0
# Output normalization for the journal conformance corpus (sed -E syntax).
#
# Written for this corpus from what e2fsprogs' test harness strips from or
# rewrites in tool output before comparing it with an expect file: things that
# vary from run to run or machine to machine (tool version banners, UUIDs,
# times, checksums, the path of the image file, MMP node/time), never the
# messages under test.  Rules run top to bottom; a deleted line stops there.

# Version banner of any e2fsprogs tool: "<tool> 1.47.0 (5-Feb-2023)" and the
# like (any suffix after the minor number; date as day-Mon-year).
/^(debugfs|dumpe2fs|e2fsck|mke2fs|resize2fs|tune2fs|e2image) [1-9]\.[0-9]*[^ ]* \([0-9]*-[A-Za-z]*-[0-9]*\)/d

# A literal "\015" text sequence is dropped wherever it appears.
s/\\015//g

# Lines that carry dates, UUIDs, counters, seeds or host-specific advice.
/automatically checked/d
/^Directory Hash Seed:/d
/Discarding device blocks/d
/^Filesystem created:/d
/^Filesystem flags:/d
/^Filesystem UUID:/d
/^JFS DEBUG:/d
/^Last write time:/d
/^Last mount time:/d
/^Last checked:/d
/^Lifetime writes:/d
/^Maximum mount count:/d
/^Next check after:/d
/^Suggestion:/d
/security.selinux/d

# The reserved uid/gid keep their number but lose the local account name.
/Reserved blocks uid:/s/ \(user .*\)//
/Reserved blocks gid:/s/ \(group .*\)//

/whichever comes first/d

# Checksums: whole "  Checksum ..." / "Checksum:" / "Checksum seed:" lines go,
# and inline "csum 0x<hex>" annotations are cut out of the line.
/^  Checksum /d
s/, csum 0x[0-9a-f]*//g
s/ csum 0x[0-9a-f]*//g
/^Checksum:/d
/^Checksum seed:/d

# The image file's path, wherever a tool names the device, becomes test.img.
s/while trying to open [^ ]*/while trying to open test.img/
s/he filesystem on [^ ]* /he filesystem on test.img /
s/^[^ ]* contains a ([a-z]*) file system /test.img contains a \1 file system /

# Multi-mount protection: device, node, and update times are fixed strings.
s/MMP block [0-9]* from [^ ]*/MMP block from test.img/
s/safe to mount '.*', MMP/safe to mount 'test.img', MMP/
s/mmp_device_name: .*/mmp_device_name: test.img/
s/mmp_node_name: .*/mmp_node_name: test_node/
s/mmp_update_date: .*/mmp_update_date: test date/
s/mmp_update_time: .*/mmp_update_time: test_time/
s/MMP last updated by '.*' on .*/MMP last updated by 'test_node' on test date/
s/MMP update by '.*' at .*/MMP last updated by 'test_node' on test date/
