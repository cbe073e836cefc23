# libFuzzer targets, included by the Makefile (after its variables), or
# run alone with `make -f Makefile -f fuzz/fuzz.mk <target>`.  See
# fuzz/README.md.
#   make fuzz-build    build every target into build-fuzz/
#   make fuzz          run each target for FUZZ_TIME seconds
#   make fuzz-smoke    run each for FUZZ_SMOKE seconds
#                      (both FUZZ_JOBS targets at a time; both fail when a
#                      target finds a crash, leak or timeout)
#   make fuzz-clean    remove build-fuzz/

# Keep the Makefile's default goal whatever this file's place in it.
FUZZ_SAVED_GOAL := $(.DEFAULT_GOAL)

FUZZ_UDTFS ?= nginx raw json kv csv tsv regex split
FUZZ_TIME  ?= 60
FUZZ_SMOKE ?= 15
FUZZ_JOBS  ?= 2
FUZZ_CC    ?= clang
FUZZ_OUT   := build-fuzz

FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS   = -std=c11 $(WARNINGS) $(WERROR) -O1 -g \
                -fno-omit-frame-pointer $(FUZZ_SAN) \
                $(shell pkg-config --cflags $(PKGS) libpcre2-8)
FUZZ_LIBS     = $(shell pkg-config --libs $(PKGS) libpcre2-8) -lpthread \
                -lsnappy # no .pc file in Debian, as in the Makefile
FUZZ_HDRS     = $(HDRS) $(wildcard fuzz/*.h)

FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_OUT)/obj/%.o)
FUZZ_KIT_OBJ := $(FUZZ_OUT)/obj/fuzz/fuzzkit.o
FUZZ_TARGETS  = $(FUZZ_UDTFS:%=fuzz_udtf_%) fuzz_logformat fuzz_config
FUZZ_TARGETS += fuzz_webhdfs fuzz_sidecar fuzz_manifest fuzz_progress \
                fuzz_ckpt fuzz_journal fuzz_spool fuzz_parquet fuzz_pqfooter
FUZZ_BINS     = $(FUZZ_TARGETS:%=$(FUZZ_OUT)/%)

.PHONY: fuzz-build fuzz fuzz-smoke fuzz-clean
.SECONDARY: $(FUZZ_TARGETS:%=$(FUZZ_OUT)/obj/fuzz/%.o)

fuzz-build: $(FUZZ_BINS)

# The library: instrumented for coverage, without libFuzzer's main().
$(FUZZ_OUT)/obj/%.o: %.c $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) \
		-fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_OUT)/libkedge-fuzz.a: $(FUZZ_LIB_OBJ) $(FUZZ_KIT_OBJ)
	@rm -f $@
	ar rcs $@ $^

# One driver per UDTF, the UDTF's name compiled in.
$(FUZZ_OUT)/obj/fuzz/fuzz_udtf_%.o: fuzz/fuzz_udtf.c $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) \
		-fsanitize=fuzzer-no-link -DFUZZ_UDTF='"$*"' -c -o $@ $<

$(FUZZ_OUT)/fuzz_%: $(FUZZ_OUT)/obj/fuzz/fuzz_%.o $(FUZZ_OUT)/libkedge-fuzz.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(FUZZ_LIBS)

fuzz: fuzz-build
	fuzz/run.sh -t $(FUZZ_TIME) -j $(FUZZ_JOBS) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	fuzz/run.sh -t $(FUZZ_SMOKE) -j $(FUZZ_JOBS) $(FUZZ_TARGETS)

fuzz-clean:
	rm -rf $(FUZZ_OUT)

.DEFAULT_GOAL := $(FUZZ_SAVED_GOAL)
