# Thin front end over CMake; see README.md. `make` builds into ./build (binaries in build/bin).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
CTEST_FLAGS ?=

.PHONY: all deps configure build test test-slow test-all bench demo format clean

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

configure: $(BUILD)/CMakeCache.txt

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

# The default suite: everything except tests labelled `slow`.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE slow $(CTEST_FLAGS)

test-slow: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L slow $(CTEST_FLAGS)

test-all: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_FLAGS)

bench: build
	@for b in $(BUILD)/bin/bench_*; do echo "== $$b"; $$b; done

demo: build
	@./scripts/demo.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')

clean:
	rm -rf $(BUILD)
