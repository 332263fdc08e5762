# Thin front end over CMake; see README.md. `make` builds into ./build (binaries in build/bin).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
CTEST_FLAGS ?=
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all deps configure build test test-slow test-all bench demo install uninstall format \
	check-format clean

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

configure: $(BUILD)/CMakeCache.txt

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

# The default suite: everything except tests labelled `slow`. The last line names the tests
# that were skipped (the device tests without a GPU), so that "100% tests passed" is not read
# as "everything ran".
test: build
	@cd $(BUILD) && rc=0 && ctest --output-on-failure -j $(JOBS) -LE slow $(CTEST_FLAGS) \
		--output-log ctest-last.log || rc=$$?; \
	skipped=$$(sed -n -E 's/^[[:space:]]*[0-9]+ - ([^ ]+) \(Skipped\)$$/\1/p' ctest-last.log | \
		tr '\n' ' '); \
	if [ -n "$$skipped" ]; then \
		echo "make test: skipped (no device, or a fixture missing): $$skipped"; \
	fi; \
	exit $$rc

test-slow: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L slow $(CTEST_FLAGS)

test-all: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_FLAGS)

bench: build
	@for b in $(BUILD)/bin/bench_*; do echo "== $$b"; $$b; done

demo: build
	@./scripts/demo.sh $(BUILD)

# cuzkd, cuzk-bench, the library (libcuzk.so, libcuzk.a, cuzk.pc), headers, docs, example
# config and systemd unit under $(PREFIX), staged under $(DESTDIR) when set
# (cmake/CuzkInstall.cmake); $(BUILD)/install_manifest.txt lists them.
install: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target cuzkd cuzk-bench cuzk cuzk_static
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# Removes what the last `make install` from $(BUILD) installed (give the same DESTDIR); the
# config in /etc/cuzk stays.
uninstall:
	DESTDIR="$(DESTDIR)" cmake -DCUZK_MANIFEST=$(BUILD)/install_manifest.txt -P cmake/uninstall.cmake

# clang-format 14 over the C and CUDA sources, generated files (.clang-format-ignore) left alone.
format:
	@./scripts/check-format.sh --fix

check-format:
	@./scripts/check-format.sh

clean:
	rm -rf $(BUILD)
