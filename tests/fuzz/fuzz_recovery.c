// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_recovery.c: libFuzzer harness for recovery.c on the memory host.
 *
 * Input: one control byte, then the journal's blocks from journal block
 * 0 (the superblock) on, as many as the input holds; the rest of the
 * journal is zero.  Control bits:
 *   0x01  4 KiB blocks (else 1 KiB)
 *   0x02  external journal (else internal, in the middle of the device)
 *   0x04  recompute the superblock checksum (gets past the v2/v3 check)
 * The same journal is recovered under every policy, each time from the
 * pristine devices.  A replay write outside the filesystem or into the
 * journal, a buffer head never released, or a sanitizer report is a
 * finding; recovery's return value is not (damage is allowed).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memdev.h"

#define FZ_FS_BLOCKS	192
#define FZ_JBASE	64
#define FZ_JLEN_1K	64
#define FZ_JLEN_4K	16

static const int fz_policies[] = {
	JBD2_POLICY_REPLAY_ALL,
	JBD2_POLICY_STOP,
	JBD2_POLICY_REFUSE,
};

/* Devices are made once per geometry and refilled for each run. */
static struct memdev *fz_fs[2], *fz_jd[2];
static unsigned char *fz_pattern[2];

static struct memdev *fz_dev(unsigned int bs, unsigned long long n)
{
	struct memdev *d = memdev_new(bs, n);

	if (!d)
		abort();
	return d;
}

static void fz_setup(int big)
{
	unsigned int bs = big ? 4096 : 1024;
	size_t i, n = (size_t)FZ_FS_BLOCKS * bs;

	if (fz_fs[big])
		return;
	fz_fs[big] = fz_dev(bs, FZ_FS_BLOCKS);
	fz_jd[big] = fz_dev(bs, big ? FZ_JLEN_4K : FZ_JLEN_1K);
	fz_pattern[big] = malloc(n);
	if (!fz_pattern[big])
		abort();
	for (i = 0; i < n; i++)
		fz_pattern[big][i] = (unsigned char)(i * 31 + 0x5a);
}

static void fz_one(const uint8_t *data, size_t size, unsigned int ctl,
		   int policy)
{
	int big = ctl & 0x01;
	unsigned int bs = big ? 4096 : 1024;
	unsigned long jlen = big ? FZ_JLEN_4K : FZ_JLEN_1K;
	int external = !!(ctl & 0x02);
	unsigned long long jbase = external ? 0 : FZ_JBASE;
	size_t jbytes = (size_t)jlen * bs;
	struct memdev *fs, *jd;
	unsigned char *jarea;
	struct memhost h;

	fz_setup(big);
	fs = fz_fs[big];
	jd = external ? fz_jd[big] : fs;
	memcpy(fs->data, fz_pattern[big], (size_t)FZ_FS_BLOCKS * bs);
	fs->live_bh = 0;
	jd->live_bh = 0;
	jarea = memdev_block(jd, jbase);
	memset(jarea, 0, jbytes);
	memcpy(jarea, data, size < jbytes ? size : jbytes);
	if (ctl & 0x04)
		ej_jsb_csum_set((journal_superblock_t *)jarea);

	if (memhost_init(&h, fs, external ? jd : NULL, jbase, jlen))
		abort();
	if (memhost_load(&h, policy) == 0)
		jbd2_journal_recover(h.journal);
	/* The invariant every policy keeps, whatever the journal holds. */
	if (h.bad_replays)
		__builtin_trap();
	memhost_unload(&h);
	if (fs->live_bh || jd->live_bh)
		__builtin_trap();
	memhost_fini(&h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int ctl;
	size_t i;

	if (size < 1)
		return 0;
	ctl = data[0];
	for (i = 0; i < sizeof(fz_policies) / sizeof(fz_policies[0]); i++)
		fz_one(data + 1, size - 1, ctl, fz_policies[i]);
	return 0;
}
