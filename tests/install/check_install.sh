#!/bin/sh
# The installed tree of `make install DESTDIR=... PREFIX=/usr` (cmake/CuzkInstall.cmake): the
# same `cmake --install` the Makefile runs, into WORKDIR/root. The build's own
# install_manifest.txt (a real install's) is put back afterwards.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR WORKDIR CC [SANITIZERS]
# SANITIZERS (CUZK_SANITIZE): the library is instrumented, so the test programs are too.
set -u
build=$1
src=$2
dir=$3
cc=$4
san=${5:+-fsanitize=$5}
root=$dir/root
fail=0
rm -rf "$dir"
mkdir -p "$dir"
manifest=$build/install_manifest.txt
if [ -f "$manifest" ]; then cp "$manifest" "$dir/manifest.saved"; fi
restore() {
    if [ -f "$dir/manifest.saved" ]; then cp "$dir/manifest.saved" "$manifest"; else rm -f "$manifest"; fi
}
trap restore EXIT

ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
has() { if grep -Eq "$2" "$1"; then ok "$3"; else bad "$3: /$2/ not in $1"; fi; }

if ! DESTDIR="$root" cmake --install "$build" --prefix /usr >"$dir/install.log" 2>&1; then
    cat "$dir/install.log"; echo "FAIL cmake --install"; exit 1
fi
cp "$manifest" "$dir/manifest.txt"

for f in usr/bin/cuzkd usr/bin/cuzk-bench usr/include/cuzk/err.h usr/include/cuzk/cuzk.h \
    usr/share/doc/cuzk/README.md usr/share/doc/cuzk/daemon.md usr/share/doc/cuzk/examples/cuzk.toml \
    usr/share/doc/cuzk/examples/prove_wpost.c \
    usr/lib/systemd/system/cuzkd.service usr/lib/sysusers.d/cuzk.conf etc/cuzk/cuzk.toml; do
    if [ -f "$root/$f" ]; then ok "installed /$f"; else bad "missing /$f"; fi
done
for f in usr/bin/cuzkd usr/bin/cuzk-bench; do
    if [ -x "$root/$f" ]; then ok "/$f is executable"; else bad "/$f is not executable"; fi
done
if grep -q "^/etc/cuzk/cuzk.toml" "$dir/manifest.txt"; then
    bad "the config is in the manifest (uninstall would remove the operator's file)"
fi
has "$dir/manifest.txt" "^/usr/bin/cuzkd$" "manifest lists /usr/bin/cuzkd without DESTDIR"

unit=$root/usr/lib/systemd/system/cuzkd.service
has "$unit" "^ExecStart=/usr/bin/cuzkd --config /etc/cuzk/cuzk.toml --listen \\$\\{CUZK_LISTEN\\}$" \
    "unit: ExecStart with the installed paths"
for k in "User=cuzk" "RuntimeDirectory=cuzk" "Environment=CUZK_LISTEN=unix:///run/cuzk/cuzk.sock" \
    "Restart=on-failure" "KillSignal=SIGTERM" "TimeoutStopSec=40s" "LimitMEMLOCK=infinity" \
    "LimitNOFILE=65536" "PrivateDevices=no" "ProtectSystem=strict"; do
    has "$unit" "^$k$" "unit: $k"
done

# The installed daemon with the installed config: loads, and prints it back.
if "$root/usr/bin/cuzkd" --config "$root/etc/cuzk/cuzk.toml" --print-config >"$dir/print.toml" \
    2>"$dir/print.err"; then
    ok "installed cuzkd --print-config with the installed config"
    has "$dir/print.toml" '^listen = \["unix:///run/cuzk/cuzk.sock"\]$' "config: listen"
    has "$dir/print.toml" '^shutdown_grace = "30s"$' "config: shutdown_grace (the unit's stop timeout)"
    has "$dir/print.toml" '^param_cache = "/var/tmp/filecoin-proof-parameters"$' "config: param_cache"
else
    cat "$dir/print.err"; bad "installed cuzkd --print-config"
fi
"$root/usr/bin/cuzk-bench" --help >"$dir/bench.txt" 2>&1 && has "$dir/bench.txt" "setup" \
    "installed cuzk-bench --help"

# The public headers compile on their own from the installed include directory.
for h in err.h cuzk.h; do
    printf '#include <cuzk/%s>\nint main(void) { return 0; }\n' "$h" >"$dir/hdr.c"
    if "$cc" -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$root/usr/include" \
        "$dir/hdr.c" 2>"$dir/hdr.err"; then
        ok "installed <cuzk/$h> compiles"
    else
        cat "$dir/hdr.err"; bad "installed <cuzk/$h> does not compile"
    fi
done

# The library, linked as the README says: through pkg-config (shared), and the archive with
# Libs.private (static). The program starts an engine and reads its status.
pcfile=$(find "$root/usr" -name cuzk.pc | head -n 1)
cat >"$dir/app.c" <<'EOF_APP'
#include <cuzk/cuzk.h>
#include <stdio.h>
int main(void)
{
    cuzk_engine *e = NULL;
    cuzk_diag dg;
    cuzk_status st;
    if (cuzk_engine_new(&e, NULL, "[memory]\ntotal_budget = \"64MiB\"\n[logging]\nlevel = \"error\"\n",
                        &dg) != CUZK_OK || cuzk_get_status(e, &st, &dg) != CUZK_OK) {
        printf("%s\n", dg.message);
        return 1;
    }
    printf("cuzk %s api %u budget %llu\n", cuzk_version(), (unsigned)cuzk_api_version(),
           (unsigned long long)st.mem_budget_bytes);
    cuzk_engine_free(e);
    return cuzk_api_version() == CUZK_API_VERSION && st.mem_budget_bytes == 64u << 20 ? 0 : 1;
}
EOF_APP
if [ -z "$pcfile" ]; then
    bad "no cuzk.pc installed"
elif ! command -v pkg-config >/dev/null 2>&1; then
    echo "skip linking the installed library: pkg-config is not installed"
else
    ok "installed ${pcfile#"$root"}"
    libdir=$(dirname "$(dirname "$pcfile")")
    pc="env PKG_CONFIG_PATH=$(dirname "$pcfile") pkg-config"
    if "$cc" -std=c11 $san -o "$dir/app" "$dir/app.c" $($pc --cflags --libs cuzk) 2>"$dir/app.err" &&
        LD_LIBRARY_PATH="$libdir" "$dir/app" >"$dir/app.out" 2>&1; then
        ok "a program built with pkg-config --cflags --libs cuzk runs ($(cat "$dir/app.out"))"
    else
        cat "$dir/app.err" "$dir/app.out" 2>/dev/null; bad "linking or running with libcuzk.so"
    fi
    if "$cc" -std=c11 $san -o "$dir/app-static" "$dir/app.c" $($pc --cflags cuzk) "$libdir/libcuzk.a" \
        $($pc --static --libs cuzk | sed 's/-lcuzk //') \
        2>"$dir/app.err" && "$dir/app-static" >"$dir/app.out" 2>&1; then
        ok "a program linked with libcuzk.a and Libs.private runs"
    else
        cat "$dir/app.err" "$dir/app.out" 2>/dev/null; bad "linking or running with libcuzk.a"
    fi
    if ldd "$dir/app-static" 2>/dev/null | grep -q libcuzk; then
        bad "the static program still loads libcuzk.so"
    fi
fi

# systemd-analyze verify: the unit as installed, its ExecStart pointed at the staged binary
# (verify checks that it exists). verify reports problems as messages while exiting 0, so any
# output is a failure.
if command -v systemd-analyze >/dev/null 2>&1; then
    mkdir -p "$dir/verify"
    sed "s|^ExecStart=/usr/bin/cuzkd |ExecStart=$root/usr/bin/cuzkd |" "$unit" \
        >"$dir/verify/cuzkd.service"
    if systemd-analyze verify "$dir/verify/cuzkd.service" >"$dir/verify.log" 2>&1 &&
        [ ! -s "$dir/verify.log" ]; then
        ok "systemd-analyze verify cuzkd.service"
    else
        cat "$dir/verify.log"; bad "systemd-analyze verify cuzkd.service"
    fi
else
    echo "skip systemd-analyze verify: systemd-analyze is not installed (Debian package systemd)"
fi

# A second install keeps the operator's config; uninstall removes the rest, not the config.
echo "# edited" >>"$root/etc/cuzk/cuzk.toml"
DESTDIR="$root" cmake --install "$build" --prefix /usr >"$dir/install2.log" 2>&1 ||
    bad "second install"
has "$root/etc/cuzk/cuzk.toml" "^# edited$" "a second install keeps the edited config"
DESTDIR="$root" cmake -DCUZK_MANIFEST="$manifest" -P "$src/cmake/uninstall.cmake" \
    >"$dir/uninstall.log" 2>&1 || bad "uninstall"
left=$(cd "$root" && find . ! -type d | sort | tr '\n' ' ')
if [ "$left" = "./etc/cuzk/cuzk.toml " ]; then
    ok "uninstall leaves only /etc/cuzk/cuzk.toml"
else
    bad "uninstall left: $left"
fi
exit $fail
