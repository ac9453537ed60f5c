/*
** sha256.h: SHA-256 (FIPS 180-4) of a byte range, as lower-case hex. Used for
** the trace_sha256 provenance of a profile (xplane_space.sha256).
*/
#ifndef XPLANE_SHA256_H
#define XPLANE_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* Writes 64 hex digits and a NUL into hex[65]; returns 0 (hex = "") when
** libcrypto fails (out of memory) or the current work is cancelled
** (cancel.h, checked per MiB). */
int xp_sha256_hex(const uint8_t *data, size_t n, char hex[65]);

#endif
