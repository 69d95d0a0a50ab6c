/* SPDX-License-Identifier: GPL-2.0 */
/* placeholder: being written */
#include "e2journal.h"
