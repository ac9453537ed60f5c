#!/usr/bin/env bash
# tools/setup.sh: make sure this machine can build and test xplane-sqlite,
# then configure and build it. Sourced by tools/report.sh and tools/test.sh;
# safe to run again (installs only what is missing, rebuilds only what changed).
#
#   XPLANE_BUILD_DIR   build directory (default: <repo>/build)
#
# Debian packages: a C toolchain, CMake, SQLite (library, headers, shell),
# protobuf-c (library, headers, protoc-c), protoc (tests decode traces with
# it), yajl and zlib (reading JSON traces, streaming, gzip), libcrypto
# (libssl-dev: SHA-256 of profiles), clang (the
# fuzzer), valgrind, and small tools the test scripts call (xxd, openssl, jq,
# gzip, setpriv from util-linux); with XPLANE_TEST_DEPS=1 also what only the
# tests use (below).
set -euo pipefail

XPLANE_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
XPLANE_BUILD_DIR="${XPLANE_BUILD_DIR:-$XPLANE_SRC/build}"
export XPLANE_SRC XPLANE_BUILD_DIR

xplane_packages=(build-essential cmake pkg-config sqlite3 libsqlite3-dev libprotobuf-c-dev
                 protobuf-c-compiler protobuf-compiler libyajl-dev zlib1g-dev libssl-dev clang valgrind
                 xxd openssl jq gzip util-linux)
# What only the tests use (tools/test.sh sets XPLANE_TEST_DEPS=1): Python for the independent
# checks (reference comparison, region recomputation, hostile inputs, the package linter),
# python3-protobuf for the hostile inputs' descriptors (tests/hostile/edges.sh), and headless
# Chromium to render the HTML report; python3-venv for the project venv (tools/venv.sh), which
# carries protobuf and pandas for Perfetto's Python TraceProcessor.
if [ "${XPLANE_TEST_DEPS:-0}" = 1 ]; then
  xplane_packages+=(python3 python3-venv python3-protobuf chromium)
fi

xplane_install_deps() {
  local missing=()
  for p in "${xplane_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
    return 1
  fi
  echo "setup: installing ${missing[*]}" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
}

xplane_build() {
  cmake -S "$XPLANE_SRC" -B "$XPLANE_BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$XPLANE_BUILD_DIR" -j"$(nproc)" >/dev/null
}

xplane_install_deps
xplane_build
# The project venv (requirements.txt) for the tests that run xprof and JAX.
if [ "${XPLANE_TEST_DEPS:-0}" = 1 ]; then source "$XPLANE_SRC/tools/venv.sh"; fi
