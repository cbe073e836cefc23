# kedge: plain Makefile, pkg-config for every library.
#   make            build ./kedge
#   make test       install every dependency, build with -Werror, run every
#                   test
#   make demo       install the build's dependencies, build, run the demo
#                   against librdkafka's mock cluster
#   make bench      throughput against kcat, on mock topics and on the real
#                   broker, where also against the Flink job users run
#                   (docs/performance.md), and every UDTF against a
#                   PCRE2-JIT regex on the same lines
#   make docs       regenerate docs/config.md from the key table
#   make install    the binary, <kedge/udtf.h>, the sample plugin, the docs
#                   and the man pages (DESTDIR, PREFIX=/usr)
#   make install-service
#                   the systemd unit, sysusers.d and tmpfiles.d entries and
#                   /etc/kedge/kedge.conf (DESTDIR, UNITDIR, SYSUSERSDIR,
#                   TMPFILESDIR, SYSCONFDIR)
#   make deb        kedge_$(VERSION)_amd64.deb (packaging/deb/)
#   make rpm        kedge-$(VERSION)-1.x86_64.rpm (packaging/rpm/)

VERSION  := 0.1.0
PKGS     := rdkafka libconfig zlib libzstd libpcre2-8 krb5 openssl libcurl jansson \
            libmicrohttpd libxxhash libisal
CC       ?= cc
CFLAGS   ?= -O2 -g
WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wformat=2 -Wno-format-nonliteral
# Every project header is included by its path from the top of the tree:
# "lib/buf.h", "agent/write/writer.h", "checkpoint/ckpt.h".
CPPFLAGS += -D_GNU_SOURCE -DKEDGE_VERSION='"$(VERSION)"' -I.
ALL_CFLAGS = -std=c11 $(WARNINGS) $(WERROR) $(CFLAGS) \
             $(shell pkg-config --cflags $(PKGS))
# Expanded where used, not here: `make demo` and `make test` run before
# pkg-config is installed.
LIBS      = $(shell pkg-config --libs $(PKGS)) -lpthread
# Debian's libsnappy-dev ships no .pc file: linked by name.
LIBS     += -lsnappy
# make KEDGE_RELEASE=1 (the packages): without the crash points the tests
# use (lib/crash.h); the default build keeps them.
ifneq ($(KEDGE_RELEASE),)
CPPFLAGS += -DKEDGE_NO_CRASH_POINTS
endif
B        := build
# make test and make check build with a job a core.
JOBS     := $(shell nproc 2>/dev/null || echo 2)
BIN      := kedge
ASAN     := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all
TSAN     := -O1 -g -fsanitize=thread -fno-omit-frame-pointer

# lib/ and the leaf folders, the agent's stages (one folder each), the
# orchestrators in agent/ itself.
SRC_DIRS := lib checkpoint security agent/udtf agent/parquet agent/source \
            agent/config agent/parse agent/write agent/target agent/publish \
            agent/complete agent/ops agent/cli agent
HDRS     := $(wildcard $(SRC_DIRS:%=%/*.h))
LIB_SRC  := $(filter-out agent/main.c,$(wildcard $(SRC_DIRS:%=%/*.c)))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
FIX_SRC  := $(wildcard tests/fixtures/*.c)
FIX_BIN  := $(FIX_SRC:tests/fixtures/%.c=$(B)/fixtures/%)

PREFIX      ?= /usr
DESTDIR     ?=
SYSCONFDIR  ?= /etc
UNITDIR     ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
MAN         := $(B)/man/kedge.8 $(B)/man/kedge.conf.5

.PHONY: all deps deps-build deps-bench test check build-test build-unit demo \
	bench docs man install install-service deb rpm clean
all: $(BIN)

# What each target needs, from Debian's archive (scripts/install-deps.sh):
# the demo only the build's; the bench also kcat, the real broker and the
# Flink job (Java, Maven); the tests everything.
deps:
	@scripts/install-deps.sh test
deps-build:
	@scripts/install-deps.sh build
deps-bench:
	@scripts/install-deps.sh bench

$(B)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(B)/libkedge.a: $(LIB_OBJ)
	ar rcs $@ $^

$(BIN): $(B)/agent/main.o $(B)/libkedge.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/tests/%: tests/%.c $(wildcard tests/*.h) $(B)/libkedge.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(B)/libkedge.a $(LIBS) \
		$(shell pkg-config --libs cmocka)

$(B)/fixtures/%: tests/fixtures/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(LIBS)

# pqwrite drives the Parquet writer of the agent's library.
$(B)/fixtures/pqwrite: tests/fixtures/pqwrite.c $(B)/libkedge.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(B)/libkedge.a $(LIBS)

# The SASL front for the mock broker is a GSSAPI acceptor.
$(B)/fixtures/saslfront: LIBS += $(shell pkg-config --libs krb5-gssapi)

# Everything twice: as shipped, and under AddressSanitizer and UBSan; the
# binary and the unit tests once more under ThreadSanitizer, for the
# threaded parts' tests (tests/run.sh --tsan); then a bounded smoke of
# every libFuzzer target (fuzz/fuzz.mk).
test: deps
	scripts/install-py-deps.sh --spark
	$(MAKE) -j$(JOBS) WERROR=-Werror build-test
	$(MAKE) -j$(JOBS) WERROR=-Werror B=build-asan BIN=build-asan/kedge \
		CFLAGS="$(ASAN)" build-test
	$(MAKE) -j$(JOBS) WERROR=-Werror B=build-tsan BIN=build-tsan/kedge \
		CFLAGS="$(TSAN)" build-unit
	$(MAKE) -j$(JOBS) WERROR=-Werror fuzz-build
	tests/run.sh --fuzz --tsan build build-asan

build-test: $(BIN) $(TEST_BIN) $(FIX_BIN)

# The binary and the unit tests, without the fixtures (the TSan pass runs
# the plain build's).
build-unit: $(BIN) $(TEST_BIN)

# The edit-test loop: the plain build, its unit tests and the short
# integration tests (tests/run.sh --quick: no ASan pass, no fuzz, no kill
# loops, no real services).  ONLY=REGEX narrows it to the tests it names.
# It assumes what `make deps` (or `make test`) installed once.
check:
	$(MAKE) -j$(JOBS) WERROR=-Werror build-test
	tests/run.sh --quick $(if $(ONLY),--only '$(value ONLY)') build

demo: deps-build
	$(MAKE) kedge $(FIX_BIN)
	scripts/demo.sh

bench: deps-bench
	$(MAKE) kedge $(FIX_BIN)
	scripts/bench.sh
	scripts/bench-real.sh
	scripts/bench-udtf.sh

docs: kedge
	./kedge config-reference > docs/config.md

# kedge(8) as written; kedge.conf(5) with the keys the binary declares.
man: $(MAN)

$(B)/man/kedge.8: docs/man/kedge.8.in Makefile
	@mkdir -p $(dir $@)
	sed 's/@VERSION@/$(VERSION)/' docs/man/kedge.8.in >$@

$(B)/man/kedge.conf.5: docs/man/kedge.conf.5.in docs/man/keys.awk $(BIN)
	@mkdir -p $(dir $@)
	$(abspath $(BIN)) config-reference | awk -f docs/man/keys.awk >$@.keys
	sed -e 's/@VERSION@/$(VERSION)/' -e '/^@KEYS@$$/{r $@.keys' -e 'd;}' \
		docs/man/kedge.conf.5.in >$@
	rm -f $@.keys

# The binary, the UDTF header as <kedge/udtf.h>, the sample plugin's
# source, the docs and the man pages.
install: $(BIN) $(MAN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/kedge
	install -D -m 0644 $(B)/man/kedge.8 $(DESTDIR)$(PREFIX)/share/man/man8/kedge.8
	install -D -m 0644 $(B)/man/kedge.conf.5 \
		$(DESTDIR)$(PREFIX)/share/man/man5/kedge.conf.5
	install -D -m 0644 agent/udtf/udtf.h $(DESTDIR)$(PREFIX)/include/kedge/udtf.h
	install -d $(DESTDIR)$(PREFIX)/share/doc/kedge/examples/udtf-plugin
	install -m 0644 examples/udtf-plugin/* \
		$(DESTDIR)$(PREFIX)/share/doc/kedge/examples/udtf-plugin/
	install -m 0644 README.md docs/*.md examples/kedge.conf \
		$(DESTDIR)$(PREFIX)/share/doc/kedge/

# What a system service needs besides "install": the unit, the user, the
# directories, and examples/kedge.conf as the configuration (its spool and
# warehouse are under /var/lib/kedge, which the unit lets kedge write).
install-service:
	install -D -m 0644 systemd/kedge.service $(DESTDIR)$(UNITDIR)/kedge.service
	install -D -m 0644 systemd/kedge.sysusers \
		$(DESTDIR)$(SYSUSERSDIR)/kedge.conf
	install -D -m 0644 systemd/kedge.tmpfiles \
		$(DESTDIR)$(TMPFILESDIR)/kedge.conf
	install -D -m 0644 examples/kedge.conf $(DESTDIR)$(SYSCONFDIR)/kedge/kedge.conf

deb:
	packaging/deb/build.sh $(VERSION)

# rpmbuild from this tree (--build-in-place); --nodeps, as Debian has no rpm
# database to satisfy BuildRequires from.
rpm:
	rm -rf build-rpm
	rpmbuild -bb --build-in-place --nodeps --define '_topdir $(CURDIR)/build-rpm' \
		--define 'kedge_version $(VERSION)' packaging/rpm/kedge.spec
	cp build-rpm/RPMS/*/kedge-$(VERSION)-1.*.rpm .

clean:
	rm -rf build build-asan build-tsan build-fuzz build-deb build-rpm build-release kedge \
		kedge_*.deb kedge-*.rpm

-include fuzz/fuzz.mk
