#include "e2journal.h"
int main(void) { return 8; }
