#!/bin/sh
# Installs the Debian -dev packages behind the pkg-config modules named on the
# command line, but only those pkg-config cannot find. Called by the Makefile so
# that `make demo` and `make test` work on a fresh Debian 12 machine.
#   scripts/install-deps.sh criterion cairo yaml-0.1 jansson sdl2 [bin:xvfb-run] [bin:clang] [libfuzzer]
#   [bin:sbatch bin:munged]   (Slurm and munge: tests/test_sweep.c starts a one-node cluster)
# A name of the form bin:PROG installs the package that provides that program.
set -eu

pkg_for_module() {
    case "$1" in
        criterion) echo libcriterion-dev ;;
        cairo) echo libcairo2-dev ;;
        fontconfig) echo libfontconfig-dev ;;
        sdl2) echo libsdl2-dev ;;
        yaml-0.1) echo libyaml-dev ;;
        jansson) echo libjansson-dev ;;
        bin:xvfb-run) echo "xvfb xauth" ;;
        bin:pkg-config) echo pkg-config ;;
        bin:clang) echo clang ;;
        bin:sbatch) echo slurm-wlm ;;
        bin:munged) echo munge ;;
        libfuzzer) echo "clang libclang-rt-dev" ;;
        *) echo "install-deps: unknown dependency '$1' (known: criterion cairo fontconfig sdl2 yaml-0.1 jansson bin:xvfb-run bin:clang bin:sbatch bin:munged libfuzzer)" >&2; exit 2 ;;
    esac
}

missing=""
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"
for dep in "$@"; do
    case "$dep" in
        bin:*) PATH="$PATH:/usr/sbin:/sbin" command -v "${dep#bin:}" >/dev/null 2>&1 && continue ;;
        # clang's libFuzzer runtime (libclang_rt.fuzzer), in its own package
        libfuzzer) command -v clang >/dev/null 2>&1 &&
                   [ -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] && continue ;;
        *) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$dep" && continue ;;
    esac
    missing="$missing $(pkg_for_module "$dep")"
done

[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: missing:$missing, and apt-get is not available; install them by hand" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "install-deps: missing:$missing; run as root or install sudo" >&2; exit 1
    fi
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A stale package index makes installs fail on fresh images: refresh it once.
$SUDO apt-get update -qq >/dev/null || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
