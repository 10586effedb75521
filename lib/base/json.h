/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON text: what the JSON writers (lp-svg's embedded data, lp-export) share. */
#ifndef LP_JSON_H
#define LP_JSON_H

#include <stddef.h>

#include "base/strbuf.h"

/*
 * Appends s as a quoted JSON string: quotes, backslashes and control
 * characters escaped; bytes that are not well-formed UTF-8 become U+FFFD, so
 * any input gives a document every JSON parser takes. -ENOMEM.
 */
int json__string(struct strbuf *b, const char *s, size_t len);

#endif
