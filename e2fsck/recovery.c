/* SPDX-License-Identifier: GPL-2.0 */
/* placeholder: being written */
#ifndef __KERNEL__
#include "jfs_user.h"
#endif
int jbd2_journal_recover(journal_t *journal) { (void)journal; return -EINVAL; }
