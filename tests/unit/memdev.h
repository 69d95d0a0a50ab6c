/* placeholder */
#include "jfs_user.h"
