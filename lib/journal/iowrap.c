// SPDX-License-Identifier: LGPL-2.0
/*
 * iowrap.c: the one hook through which a program wraps the io manager the
 * library opens images and journal devices with.
 *
 * jopen.c (an external journal) and image.c (the ej_image API) ask
 * ej_io_wrap() for their manager.  Unless a program registered a function
 * with ej_io_wrap_set() that is the manager they name.  The test library
 * (lib/journal/test/testio.c) registers its fault injector here when a
 * test hands it settings, so that the shipped library holds no test code.
 */
#include "ej_lib.h"

static ej_io_wrap_fn io_wrap_fn;

void ej_io_wrap_set(ej_io_wrap_fn fn)
{
	io_wrap_fn = fn;
}

io_manager ej_io_wrap(io_manager base)
{
	if (!io_wrap_fn || !base)
		return base;
	return io_wrap_fn(base);
}
