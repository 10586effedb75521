/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text that is safe inside XML (SVG) character data and attribute values. */
#ifndef LP_XML_H
#define LP_XML_H

#include <stddef.h>

#include "base/strbuf.h"

/*
 * Appends s escaped for XML: & < > " ' as entities; bytes that are not
 * well-formed UTF-8, and control characters XML 1.0 forbids, become U+FFFD.
 * -ENOMEM.
 */
int xml__escape(struct strbuf *out, const char *s, size_t len);

/* Appends s with invalid UTF-8 and forbidden control characters replaced by U+FFFD. */
int xml__utf8_sanitize(struct strbuf *out, const char *s, size_t len);

#endif
