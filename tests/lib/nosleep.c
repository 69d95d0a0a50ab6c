// SPDX-License-Identifier: GPL-2.0
/*
 * nosleep.c: an LD_PRELOAD shim that makes sleep() return at once.
 *
 * libext2fs' MMP code waits 2 * interval + 1 seconds (11 s at least,
 * since the interval is never taken below 5 s) each time a filesystem
 * with the mmp feature is opened read-write.  Tests that only need an
 * MMP filesystem opened, not the wait itself, preload this so that each
 * open does not cost 11 s of idle wall time (tests/e2fsck/save_fail.sh).
 * The MMP block is still written and read back as it would be.
 */
unsigned int sleep(unsigned int seconds);

unsigned int sleep(unsigned int seconds)
{
	(void)seconds;
	return 0;
}
