# mk/install.mk -- `make install` and `make uninstall`.
#
#   make install [PREFIX=/usr/local] [DESTDIR=/staging/root]
#
# Installs, under $(DESTDIR)$(PREFIX):
#   bin/autoanalyzer                         the command
#   lib/libautoanalyzer*.a, .so*             the runtime libraries, if built
#   include/autoanalyzer/aa_probe.h, aa_runtime.h   public runtime headers
#   lib/pkgconfig/autoanalyzer.pc            for instrumented programs
#   share/doc/autoanalyzer/                  README and docs/*.md (+ schema)
#   share/autoanalyzer/samples/              the sample programs' sources
# DESTDIR is a staging root (for packaging): it is not part of the paths
# written into the installed files.  Included at the end of the top-level
# Makefile, after every module, so $(AA_BIN) and $(ALL_TARGETS) are known.

DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
DOCDIR      ?= $(PREFIX)/share/doc/autoanalyzer
DATADIR     ?= $(PREFIX)/share/autoanalyzer
INSTALL     ?= install

# Public headers of the runtime, installed flat into include/autoanalyzer/
# (their `#include "runtime/x.h"` lines are rewritten to `#include "x.h"`).
INSTALL_HEADERS := runtime/aa_probe.h runtime/aa_runtime.h
INSTALL_SAMPLES := $(wildcard samples/*.c) samples/Makefile samples/README.md

install: all
	@test -n "$(PREFIX)" || { echo "install: PREFIX is empty" >&2; exit 2; }
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(LIBDIR)/pkgconfig" \
	    "$(DESTDIR)$(INCLUDEDIR)/autoanalyzer" "$(DESTDIR)$(DOCDIR)" \
	    "$(DESTDIR)$(DATADIR)/samples"
	$(INSTALL) -m 755 $(AA_BIN) "$(DESTDIR)$(BINDIR)/autoanalyzer"
	@set -e; for f in $(B)/lib/libautoanalyzer*.a $(B)/lib/libautoanalyzer*.so*; do \
	    [ -e "$$f" ] || [ -L "$$f" ] || continue; \
	    echo "cp -P $$f $(DESTDIR)$(LIBDIR)/"; \
	    rm -f "$(DESTDIR)$(LIBDIR)/$${f##*/}"; \
	    cp -P "$$f" "$(DESTDIR)$(LIBDIR)/"; \
	    [ -L "$$f" ] || chmod 644 "$(DESTDIR)$(LIBDIR)/$${f##*/}"; \
	done
	@set -e; for h in $(INSTALL_HEADERS); do \
	    [ -f "$$h" ] || continue; \
	    echo "install $$h $(DESTDIR)$(INCLUDEDIR)/autoanalyzer/"; \
	    sed 's|^\(#[ ]*include[ ]*"\)[a-z_]*/\(aa_[a-z_0-9]*\.h"\)|\1\2|' "$$h" \
	        > "$(DESTDIR)$(INCLUDEDIR)/autoanalyzer/$${h##*/}"; \
	    chmod 644 "$(DESTDIR)$(INCLUDEDIR)/autoanalyzer/$${h##*/}"; \
	done
	@# the runtime library's link name: libautoanalyzer-rt if that is what
	@# was built, else libautoanalyzer
	@set -e; lib=autoanalyzer; \
	for f in $(B)/lib/libautoanalyzer-rt.a $(B)/lib/libautoanalyzer-rt.so; do \
	    [ -e "$$f" ] && lib=autoanalyzer-rt; done; \
	echo "write $(DESTDIR)$(LIBDIR)/pkgconfig/autoanalyzer.pc (-l$$lib)"; \
	{ echo "prefix=$(PREFIX)"; \
	  echo "exec_prefix=\$${prefix}"; \
	  echo "libdir=$(patsubst $(PREFIX)/%,\$${exec_prefix}/%,$(LIBDIR))"; \
	  echo "includedir=$(patsubst $(PREFIX)/%,\$${prefix}/%,$(INCLUDEDIR))"; \
	  echo ""; \
	  echo "Name: autoanalyzer"; \
	  echo "Description: AutoAnalyzer runtime: measures the code regions of instrumented MPI programs"; \
	  echo "Version: $(VERSION)"; \
	  echo "Cflags: -I\$${includedir}/autoanalyzer"; \
	  echo "Libs: -L\$${libdir} -l$$lib"; \
	  echo "Libs.private: $(strip $(PAPI_LIBS)) -lpthread -lm"; \
	} > "$(DESTDIR)$(LIBDIR)/pkgconfig/autoanalyzer.pc"
	$(INSTALL) -m 644 $(wildcard README.md docs/*.md docs/*.xsd) "$(DESTDIR)$(DOCDIR)/"
	$(INSTALL) -m 644 $(INSTALL_SAMPLES) "$(DESTDIR)$(DATADIR)/samples/"

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/autoanalyzer" \
	    "$(DESTDIR)$(LIBDIR)"/libautoanalyzer*.a "$(DESTDIR)$(LIBDIR)"/libautoanalyzer*.so* \
	    "$(DESTDIR)$(LIBDIR)/pkgconfig/autoanalyzer.pc"
	rm -rf "$(DESTDIR)$(INCLUDEDIR)/autoanalyzer" "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(DATADIR)"

.PHONY: install uninstall
