#include "e2journal.h"
