# tmascope build. `make` builds what this machine can build; `make demo` and
# `make test` first install missing Debian -dev packages (scripts/install-deps.sh).
#
# Layers, bottom up (README.md "Architecture"); each is compiled with the include paths of
# its own layer and those below it, so an include of a layer above does not build:
#   sim/        libtmasim: pure C11 models, the plan, the trace (libc only; -Isim)
#               libtmadesc: sim/*_yaml.c, sim/*_json.c, the parsers (libyaml, jansson)
#   hw/         the GPU runner's host code (nvcc for *.cu; -Isim -Ihw)
#   viz/        libtmaviz: view_*.c view models (pure; -Isim -Iviz, no cairo) and
#               draw_*.c cairo drawing (-Isim -Iviz + cairo)
#   cmd/        the commands on top: cmd/tmasim (links viz drawing), cmd/tmaview (SDL2)
#   tests/      Criterion suites (test_*.c) and benchmarks (bench_*.c)
# Builds go to build/rel (optimised) and build/san (ASan + UBSan, used by `make test`).

BUILD      ?= build
CC         ?= cc
NVCC       ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_HOME  ?= $(patsubst %/bin/nvcc,%,$(NVCC))
NPROC      := $(shell nproc 2>/dev/null || echo 2)

TEST_DEPS  := criterion cairo fontconfig yaml-0.1 jansson
DEMO_DEPS  := cairo fontconfig yaml-0.1 jansson sdl2
VIEW_DEPS  := sdl2 cairo fontconfig

have = $(shell pkg-config --exists $(1) 2>/dev/null && echo yes)
HAVE_CAIRO := $(call have,cairo)
HAVE_YAML  := $(call have,yaml-0.1)
HAVE_JSON  := $(call have,jansson)
HAVE_SDL   := $(call have,sdl2)
HAVE_CRIT  := $(call have,criterion)

WARN       := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wvla -D_POSIX_C_SOURCE=200809L
CFLAGS_rel := $(WARN) -O2 -g -march=x86-64-v2
LDFLAGS_rel :=
# float-cast-overflow is not part of gcc's "undefined": asked for by name, so that a
# double too large for the integer it is cast to stops the sanitizer build.
SAN        := -fsanitize=address,undefined,float-cast-overflow
CFLAGS_san := $(WARN) -O1 -g -fno-omit-frame-pointer $(SAN) -fno-sanitize-recover=all
LDFLAGS_san := $(SAN)
# `make fuzz`: every library built again with clang for libFuzzer (tests/fuzz).
FUZZ_CC    ?= clang
CFLAGS_fuzz := $(WARN) -Wno-error -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $(SAN) -fno-sanitize-recover=all
LDFLAGS_fuzz := -fsanitize=fuzzer $(SAN)
CC_rel     := $(CC)
CC_san     := $(CC)
CC_fuzz    := $(FUZZ_CC)

PKG_CFLAGS = $(shell pkg-config --cflags $(1) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(1) 2>/dev/null)

# sim/*_yaml.c and sim/*_json.c parse files with libyaml / jansson: they form
# libtmadesc so that libtmasim itself depends on nothing but libc (hw/ links it on
# the GPU machine, which has neither library).
SIM_EXT_SRC  := $(wildcard sim/*_yaml.c sim/*_json.c)
SIM_CORE_SRC := $(filter-out $(SIM_EXT_SRC),$(wildcard sim/*.c))
SIM_DESC_SRC := $(SIM_EXT_SRC)
CLI_SRC      := $(wildcard cmd/tmasim/*.c)
VIZ_PURE_SRC := $(wildcard viz/view_*.c)
VIZ_DRAW_SRC := $(wildcard viz/draw_*.c)
VIEW_APP_SRC := $(wildcard cmd/tmaview/*.c)
TEST_SRC     := $(wildcard tests/test_*.c)
BENCH_SRC    := $(wildcard tests/bench_*.c)
HW_CU_SRC    := $(wildcard hw/*.cu)
# hw/sweep.c drives GPUs through the driver API, hw/record_cmd.c runs applications under the
# recorder, hw/record_cuda.c binds the recording buffers (driver API): part of the tmahw
# command, not the host library; hw/record_inject.c is the recorder injected into
# applications (libtmascope_inject.so, beside tmahw)
HW_CMD_C_SRC := hw/sweep.c hw/record_cmd.c hw/record_cuda.c
HW_INJ_C_SRC := hw/record_inject.c hw/record_cuda.c hw/record.c sim/err.c
HW_C_SRC     := $(filter-out $(HW_CMD_C_SRC) hw/record_inject.c,$(wildcard hw/*.c))

# include paths per layer
INC_SIM  := -Isim
INC_VIZ  := -Isim -Iviz
INC_HW   := -Isim -Ihw
INC_CMD  := -Isim -Iviz
INC_TEST := -Isim -Iviz -Ihw -Icmd/tmasim -Itests

# ---------------------------------------------------------------- per flavour rules
define flavour
B_$(1) := $(BUILD)/$(1)

$(BUILD)/$(1)/obj/sim/%.o: sim/%.c $(wildcard sim/*.h) | $(BUILD)/$(1)/obj/sim
	$$(CC_$(1)) $$(CFLAGS_$(1)) $(INC_SIM) $$(call PKG_CFLAGS,yaml-0.1 jansson) -c $$< -o $$@
$(BUILD)/$(1)/obj/viz/view_%.o: viz/view_%.c $(wildcard sim/*.h viz/*.h) | $(BUILD)/$(1)/obj/viz
	$$(CC_$(1)) $$(CFLAGS_$(1)) $(INC_VIZ) -c $$< -o $$@
$(BUILD)/$(1)/obj/viz/draw_%.o: viz/draw_%.c $(wildcard sim/*.h viz/*.h) | $(BUILD)/$(1)/obj/viz
	$$(CC_$(1)) $$(CFLAGS_$(1)) $(INC_VIZ) $$(call PKG_CFLAGS,cairo fontconfig) -c $$< -o $$@
$(BUILD)/$(1)/obj/hw/%.o: hw/%.c $(wildcard sim/*.h hw/*.h) | $(BUILD)/$(1)/obj/hw
	$$(CC_$(1)) $$(CFLAGS_$(1)) $(INC_HW) -c $$< -o $$@
$(BUILD)/$(1)/obj/cmd/tmasim/%.o: cmd/tmasim/%.c $(wildcard sim/*.h viz/*.h cmd/tmasim/*.h) | $(BUILD)/$(1)/obj/cmd/tmasim
	$$(CC_$(1)) $$(CFLAGS_$(1)) $(INC_CMD) -Icmd/tmasim $$(call PKG_CFLAGS,cairo yaml-0.1 jansson) -c $$< -o $$@
$(BUILD)/$(1)/obj/cmd/tmaview/%.o: cmd/tmaview/%.c $(wildcard sim/*.h viz/*.h cmd/tmaview/*.h) | $(BUILD)/$(1)/obj/cmd/tmaview
	$$(CC_$(1)) $$(CFLAGS_$(1)) $(INC_CMD) -Icmd/tmaview $$(call PKG_CFLAGS,cairo fontconfig sdl2) -c $$< -o $$@
$(BUILD)/$(1)/obj/tests/%.o: tests/%.c $(wildcard sim/*.h viz/*.h tests/*.h tests/fixtures/*.h hw/*.h) | $(BUILD)/$(1)/obj/tests
	$$(CC_$(1)) $$(CFLAGS_$(1)) $(INC_TEST) $$(call PKG_CFLAGS,criterion cairo jansson) \
	  -DTMASIM_BIN='"$(BUILD)/$(1)/tmasim"' -DTMASIM_REL_BIN='"$(BUILD)/rel/tmasim"' -DTMAVIEW_BIN='"$(BUILD)/$(1)/tmaview"' \
	  -DTMAHW_BIN='"$(BUILD)/rel/tmahw"' -c $$< -o $$@

$(BUILD)/$(1)/obj/sim $(BUILD)/$(1)/obj/viz $(BUILD)/$(1)/obj/hw $(BUILD)/$(1)/obj/cmd/tmasim $(BUILD)/$(1)/obj/cmd/tmaview $(BUILD)/$(1)/obj/tests $(BUILD)/$(1)/tests:
	mkdir -p $$@

$(BUILD)/$(1)/libtmasim.a: $(SIM_CORE_SRC:%.c=$(BUILD)/$(1)/obj/%.o)
	rm -f $$@ && ar rcs $$@ $$^
$(BUILD)/$(1)/libtmadesc.a: $(SIM_DESC_SRC:%.c=$(BUILD)/$(1)/obj/%.o)
	rm -f $$@ && ar rcs $$@ $$^
$(BUILD)/$(1)/libtmaviz.a: $(VIZ_PURE_SRC:%.c=$(BUILD)/$(1)/obj/%.o) $(VIZ_DRAW_SRC:%.c=$(BUILD)/$(1)/obj/%.o)
	rm -f $$@ && ar rcs $$@ $$^
$(BUILD)/$(1)/libtmahw.a: $(HW_C_SRC:%.c=$(BUILD)/$(1)/obj/%.o)
	rm -f $$@ && ar rcs $$@ $$^

LIBS_$(1) := $(BUILD)/$(1)/libtmaviz.a $(BUILD)/$(1)/libtmadesc.a $(BUILD)/$(1)/libtmasim.a
TEST_LIBS_$(1) := $(BUILD)/$(1)/libtmaviz.a $(BUILD)/$(1)/libtmahw.a $(BUILD)/$(1)/libtmadesc.a $(BUILD)/$(1)/libtmasim.a

$(BUILD)/$(1)/tmasim: $(CLI_SRC:%.c=$(BUILD)/$(1)/obj/%.o) $$(LIBS_$(1))
	$$(CC_$(1)) $$(LDFLAGS_$(1)) $$^ -o $$@ $$(call PKG_LIBS,cairo fontconfig yaml-0.1 jansson) -lm
$(BUILD)/$(1)/tmaview: $(VIEW_APP_SRC:%.c=$(BUILD)/$(1)/obj/%.o) $$(LIBS_$(1))
	$$(CC_$(1)) $$(LDFLAGS_$(1)) $$^ -o $$@ $$(call PKG_LIBS,sdl2 cairo fontconfig yaml-0.1 jansson) -lm
$(BUILD)/$(1)/tests/%: $(BUILD)/$(1)/obj/tests/%.o $$(TEST_LIBS_$(1)) | $(BUILD)/$(1)/tests
	$$(CC_$(1)) $$(LDFLAGS_$(1)) $$^ -o $$@ $$(call PKG_LIBS,criterion cairo fontconfig yaml-0.1 jansson) -lm

$(BUILD)/$(1)/obj/fuzz/%.o: tests/fuzz/%.c $(wildcard sim/*.h cmd/tmasim/*.h viz/*.h tests/fuzz/*.h)
	@mkdir -p $$(dir $$@)
	$$(CC_$(1)) $$(CFLAGS_$(1)) $(INC_TEST) -Itests/fuzz $$(call PKG_CFLAGS,cairo jansson) -c $$< -o $$@
endef
$(eval $(call flavour,rel))
$(eval $(call flavour,san))
$(eval $(call flavour,fuzz))

# ---------------------------------------------------------------- what `make` builds
ALL := $(BUILD)/rel/libtmasim.a
ifeq ($(HAVE_CAIRO)$(HAVE_YAML)$(HAVE_JSON),yesyesyes)
ALL += $(BUILD)/rel/tmasim
endif
ifeq ($(HAVE_SDL)$(HAVE_CAIRO),yesyes)
ifneq ($(VIEW_APP_SRC),)
ALL += $(BUILD)/rel/tmaview
endif
endif
ifneq ($(NVCC),)
ifneq ($(HW_CU_SRC),)
ALL += $(BUILD)/rel/tmahw $(BUILD)/rel/libtmascope_inject.so $(BUILD)/rel/examples/hand_tma $(BUILD)/rel/examples/hand_tma_norec
endif
endif

.PHONY: all deps deps-demo test test-run validate bench demo demo-build hw clean fuzz fuzz-build fuzz-replay
.DEFAULT_GOAL := all
all: $(ALL)

deps:
	@scripts/install-deps.sh $(TEST_DEPS) $(VIEW_DEPS) bin:xvfb-run bin:sbatch bin:munged
deps-demo:
	@scripts/install-deps.sh $(DEMO_DEPS)

# ---------------------------------------------------------------- hw (nvcc, no SDL2/cairo)
NVFLAGS := -std=c++17 -O2 -g -gencode=arch=compute_90a,code=sm_90a -Xcompiler -Wall,-Wextra,-Werror \
           -Isim -I$(CUDA_HOME)/include -I$(CUDA_HOME)/extras/CUPTI/include
HW_LIBS := -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/lib64/stubs -L$(CUDA_HOME)/extras/CUPTI/lib64 \
           -lcuda -lcupti -lnvrtc -lcublasLt -ldl -lm -Xlinker -rpath=$(CUDA_HOME)/lib64
# tmahw run parses descriptions (sim/desc_yaml.c, libyaml). The GPU machine has no
# libyaml: `make hwdeps` copies this machine's static libyaml and yaml.h into
# build/hwdeps, which hw/gpu-check.sh's device call carries; used when pkg-config
# finds no yaml-0.1.
HWDEPS ?= build/hwdeps
ifeq ($(HAVE_YAML),yes)
HW_YAML_CFLAGS := $(call PKG_CFLAGS,yaml-0.1)
HW_YAML_LIBS := $(call PKG_LIBS,yaml-0.1)
else
HW_YAML_CFLAGS := -I$(HWDEPS)/include
HW_YAML_LIBS := $(HWDEPS)/lib/libyaml.a
endif
$(BUILD)/rel/obj/hwdesc/desc_yaml.o: sim/desc_yaml.c $(wildcard sim/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_rel) -Isim $(HW_YAML_CFLAGS) -c $< -o $@
hwdeps:
	mkdir -p $(HWDEPS)/include $(HWDEPS)/lib
	cp /usr/include/yaml.h $(HWDEPS)/include/ && cp $$(ls /usr/lib/*/libyaml.a | head -n1) $(HWDEPS)/lib/
hw/run_kernel_str.c: hw/run_kernel.cuh hw/record.cuh hw/embed.sh
	sh hw/embed.sh
hw/gemm_kernel_str.c: hw/gemm_kernel.cuh hw/embed.sh
	sh hw/embed.sh hw/gemm_kernel.cuh hw/gemm_kernel_str.c gemm_gen.h gemm_kernel_body
$(BUILD)/rel/obj/hw/%.o: hw/%.cu $(wildcard hw/*.h hw/*.cuh sim/*.h)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c $< -o $@
$(BUILD)/rel/obj/hwcmd/%.o: hw/%.c $(wildcard hw/*.h sim/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_rel) -Isim -Ihw -I$(CUDA_HOME)/include -c $< -o $@
$(BUILD)/rel/tmahw: $(HW_CU_SRC:%.cu=$(BUILD)/rel/obj/%.o) $(HW_CMD_C_SRC:hw/%.c=$(BUILD)/rel/obj/hwcmd/%.o) $(BUILD)/rel/libtmahw.a \
                   $(BUILD)/rel/obj/hwdesc/desc_yaml.o $(BUILD)/rel/libtmasim.a
	$(NVCC) $(NVFLAGS) $^ -o $@ $(HW_LIBS) $(HW_YAML_LIBS)
# the recorder `tmahw record` injects (position-independent; CUDA driver and CUPTI only)
$(BUILD)/rel/obj/hwinj/%.o: %.c $(wildcard hw/*.h sim/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_rel) -fPIC -fvisibility=hidden -Isim -Ihw -I$(CUDA_HOME)/include -I$(CUDA_HOME)/extras/CUPTI/include -c $< -o $@
$(BUILD)/rel/libtmascope_inject.so: $(HW_INJ_C_SRC:%.c=$(BUILD)/rel/obj/hwinj/%.o)
	$(CC) -shared $^ -o $@ -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/lib64/stubs -L$(CUDA_HOME)/extras/CUPTI/lib64 -lcupti -lcuda \
	  -Wl,-rpath,$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/extras/CUPTI/lib64
# the hand-written example (examples/hand_tma.cu, hw/record.cuh), with and without recording
EXAMPLE_BIN := $(BUILD)/rel/examples/hand_tma $(BUILD)/rel/examples/hand_tma_norec
$(BUILD)/rel/examples/hand_tma: examples/hand_tma.cu hw/record.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O2 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Ihw $< -o $@ -L$(CUDA_HOME)/lib64/stubs -lcuda
$(BUILD)/rel/examples/hand_tma_norec: examples/hand_tma.cu hw/record.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O2 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Ihw -DTMASCOPE_RECORD=0 $< -o $@ -L$(CUDA_HOME)/lib64/stubs -lcuda
hw: $(BUILD)/rel/tmahw $(BUILD)/rel/libtmascope_inject.so $(EXAMPLE_BIN)

# ---------------------------------------------------------------- fuzzing (tests/fuzz/README.md)
# One harness per input surface. With gcc (build/san) each links replay_main.c and runs
# the committed seeds and regression inputs once (`make test`); with clang (build/fuzz)
# each links libFuzzer (`make fuzz`, FUZZ_SECONDS per harness, one core).
FUZZ_NAMES   := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REPLAY  := $(FUZZ_NAMES:%=$(BUILD)/san/fuzz/%)
FUZZ_BIN     := $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz/%)
CLI_LIB_SRC  := $(filter-out cmd/tmasim/tmasim.c,$(CLI_SRC))
FUZZ_LIBS    = $(CLI_LIB_SRC:%.c=$(BUILD)/$(1)/obj/%.o) $(BUILD)/$(1)/obj/fuzz/util.o $(LIBS_$(1))
FUZZ_PKGS    := cairo fontconfig yaml-0.1 jansson
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 1
# FUZZ_STATIC=1: the harnesses link cairo, fontconfig, libyaml, jansson (and what they
# need) and the C++ runtime statically, to run where only glibc is installed (`ldd` lists
# libc, libm and the loader); give it its own BUILD directory, the objects are the same.
# The harnesses' PNG encoder (tests/fuzz/util.c) is linked first and kept over cairo's,
# which comes in with the rest of its file.
ifeq ($(FUZZ_STATIC),1)
FUZZ_LINK    = -Wl,--allow-multiple-definition -static-libstdc++ -static-libgcc -Wl,-Bstatic \
               $(filter-out -pthread -lm -lpthread,$(shell pkg-config --static --libs $(FUZZ_PKGS))) \
               -Wl,-Bdynamic -lm -lpthread -ldl
else
FUZZ_LINK    = $(call PKG_LIBS,$(FUZZ_PKGS)) -lm
endif
.SECONDARY: $(patsubst %,$(BUILD)/san/obj/fuzz/%.o,$(FUZZ_NAMES) util replay_main) $(patsubst %,$(BUILD)/fuzz/obj/fuzz/%.o,$(FUZZ_NAMES) util)

$(BUILD)/san/fuzz/%: $(BUILD)/san/obj/fuzz/%.o $(BUILD)/san/obj/fuzz/replay_main.o $(call FUZZ_LIBS,san)
	@mkdir -p $(dir $@)
	$(CC_san) $(LDFLAGS_san) $^ -o $@ $(call PKG_LIBS,$(FUZZ_PKGS)) -lm
$(BUILD)/fuzz/fuzz/%: $(BUILD)/fuzz/obj/fuzz/%.o $(call FUZZ_LIBS,fuzz)
	@mkdir -p $(dir $@)
	$(CC_fuzz) $(LDFLAGS_fuzz) $^ -o $@ $(FUZZ_LINK)

fuzz-replay: $(FUZZ_REPLAY)
	@BUILD=$(BUILD) scripts/fuzz.sh replay $(FUZZ_NAMES)
# BUILT_FROM: the commit the harnesses were built from, for scripts/fuzz.sh's run log
fuzz-build: $(FUZZ_BIN)
	@{ git describe --always --dirty 2>/dev/null || echo unknown; } >$(BUILD)/fuzz/fuzz/BUILT_FROM
fuzz:
	@scripts/install-deps.sh $(TEST_DEPS) bin:clang libfuzzer
	@$(MAKE) --no-print-directory -j$(NPROC) fuzz-build
	@BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) scripts/fuzz.sh run $(FUZZ_NAMES)

# ---------------------------------------------------------------- test, validate, bench, demo
TESTS_san := $(TEST_SRC:tests/%.c=$(BUILD)/san/tests/%)
BENCH_rel := $(BENCH_SRC:tests/%.c=$(BUILD)/rel/tests/%)

test:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory -j$(NPROC) test-build
	@$(MAKE) --no-print-directory test-run

test-build: $(TESTS_san) $(FUZZ_REPLAY) $(BUILD)/san/tmasim $(BUILD)/rel/tmasim $(filter %tmaview %tmahw,$(ALL)) $(if $(filter %tmaview,$(ALL)),$(BUILD)/san/tmaview)

test-run:
	@scripts/check-layers.sh
	@scripts/run-tests.sh $(TESTS_san)
	@$(MAKE) --no-print-directory fuzz-replay
	@$(MAKE) --no-print-directory validate

validate: $(BUILD)/rel/tmasim
	$(BUILD)/rel/tmasim replay traces/h100/validation
	$(BUILD)/rel/tmasim replay traces/h200/wgmma
	$(BUILD)/rel/tmasim accuracy traces/h100/corpus traces/h200/corpus --split test
	$(BUILD)/rel/tmasim accuracy traces/h100/corpus-seed2 traces/h200/corpus-seed2 --split all
	$(BUILD)/rel/tmasim accuracy traces/h200/corpus-seed3 --split all
	$(BUILD)/rel/tmasim accuracy traces/h200/corpus-seed4 --split all
	$(BUILD)/rel/tmasim accuracy traces/h200/pipelines --split all
	$(BUILD)/rel/tmasim accuracy traces/h200/corpus-wgmma --split test

bench:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory -j$(NPROC) $(BENCH_rel) $(BUILD)/rel/tmasim
	@for b in $(BENCH_rel); do $$b || exit 1; done

demo:
	@$(MAKE) --no-print-directory deps-demo
	@$(MAKE) --no-print-directory -j$(NPROC) demo-build
	@BUILD=$(BUILD) scripts/demo.sh
# a sub-make, so that tmaview is built when deps-demo has just installed SDL2
demo-build: $(BUILD)/rel/tmasim $(filter %tmaview,$(ALL))

clean:
	rm -rf $(BUILD)
