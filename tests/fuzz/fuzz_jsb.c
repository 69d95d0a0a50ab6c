// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_jsb.c: libFuzzer harness for ej_jsb_check() and the checksum
 * helpers on any 1024 bytes.  The first 12 input bytes choose the limits
 * (filesystem block size, blocks the journal may span); the next 1024 are
 * the superblock (zero-padded).  ej_jsb_check() must succeed, must not
 * read outside the 1024 bytes (the copy is exactly that size, so ASan
 * sees an overrun), and BAD_MAGIC must come alone.  ej_jsb_validate()
 * (data[1] picks its flags, data[2] where the superblock sits, and the
 * superblock's own UUID stands for the filesystem's) must name a reason
 * exactly when it refuses, and no reason when the superblock is healthy.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ej_lib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int sizes[] = { 1024, 2048, 4096, 65536, 512, 0 };
	struct ej_jsb_limits lim;
	journal_superblock_t *sb;
	unsigned int problems = ~0U;
	struct ej_jsb_result res;
	struct ej_jsb_env env;
	errcode_t err;
	uint64_t maxb = 0;
	size_t n;

	if (size < 12)
		return 0;
	lim.fs_blocksize = sizes[data[0] % 6];
	memcpy(&maxb, data + 4, 8);
	lim.max_blocks = maxb;
	data += 12;
	size -= 12;

	sb = malloc(1024);
	if (!sb)
		abort();
	memset(sb, 0, 1024);
	n = size < 1024 ? size : 1024;
	memcpy(sb, data, n);

	if (ej_jsb_check(sb, &lim, &problems) != 0)
		__builtin_trap();
	if ((problems & EJ_JSB_BAD_MAGIC) && problems != EJ_JSB_BAD_MAGIC)
		__builtin_trap();
	env.fs_blocksize = lim.fs_blocksize;
	env.nr_blocks = lim.max_blocks;
	env.sb_lblk = data[-10] & 3;
	env.fs_uuid = (data[-11] & 8) ? sb->s_uuid : NULL;
	env.flags = data[-11] & 7;
	err = ej_jsb_validate(sb, &env, &res);
	if (!err != !res.reason || res.problems != problems ||
	    (!problems && res.reason && res.reason != EJ_JSBR_MULTI_USERS &&
	     res.reason != EJ_JSBR_TOO_LONG && res.reason < EJ_JSBR_MAXLEN))
		__builtin_trap();
	(void)ej_jsb_csum_verify(sb);
	(void)ej_jsb_csum_seed(sb);
	ej_jsb_csum_set(sb);
	if (!ej_jsb_csum_verify(sb))
		__builtin_trap();
	free(sb);
	return 0;
}
