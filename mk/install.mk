# mk/install.mk -- `make install` and `make uninstall`.
#
#   make install [PREFIX=/usr/local] [DESTDIR=/staging/root]
#
# Installs, under $(DESTDIR)$(PREFIX):
#   bin/autoanalyzer                         the command
#   bin/autoanalyzer-mpicc, -cc, -gcc, ...   one-word compiler wrappers:
#                                            symlinks to autoanalyzer, which
#                                            dispatches on its argv[0]
#   lib/libautoanalyzer*.a, .so*             the runtime libraries, if built
#   include/autoanalyzer/aa_probe.h, aa_runtime.h, aa_user.h
#                                            public runtime headers
#   lib/pkgconfig/autoanalyzer.pc            non-MPI programs
#   lib/pkgconfig/autoanalyzer-mpi.pc        MPI programs
#   lib/cmake/AutoAnalyzer/                  CMake package (find_package)
#   share/doc/autoanalyzer/                  README and docs/*.md (+ schema)
#   share/autoanalyzer/samples/              the sample programs' sources
# The package files are generated from the templates in mk/pkg/ (@NAME@
# substituted).  DESTDIR is a staging root (for packaging): it is not part of
# the paths written into the installed files.  `make uninstall` removes
# exactly what `make install` installs.  Included at the end of the
# top-level Makefile, after every module, so $(AA_BIN) and $(ALL_TARGETS)
# are known.

DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
DOCDIR      ?= $(PREFIX)/share/doc/autoanalyzer
DATADIR     ?= $(PREFIX)/share/autoanalyzer
CMAKEDIR    ?= $(LIBDIR)/cmake/AutoAnalyzer
INSTALL     ?= install

# Public headers of the runtime, installed flat into include/autoanalyzer/
# (their `#include "runtime/x.h"` lines are rewritten to `#include "x.h"`).
INSTALL_HEADERS := runtime/aa_probe.h runtime/aa_runtime.h runtime/aa_user.h
INSTALL_SAMPLES := $(wildcard samples/*.c) samples/Makefile samples/README.md
# One-word wrapper commands (bin/autoanalyzer-<compiler> -> autoanalyzer):
# wrap/module.mk's list, the same links as in $(B)/bin.
INSTALL_WRAPPERS := $(or $(WRAP_COMPILERS),mpicc cc gcc clang mpicxx mpic++ c++ g++ mpif90 mpif77 mpifort gfortran)
INSTALL_PC := autoanalyzer autoanalyzer-mpi
INSTALL_CMAKE := AutoAnalyzerConfig AutoAnalyzerConfigVersion

# Values substituted into mk/pkg/*.in.  Paths in the .pc files are relative
# to ${prefix} where they lie under it; the CMake package computes the
# prefix from its own location (relocatable).
INSTALL_REL = $(patsubst $(PREFIX)/%,%,$(1))
INSTALL_PC_LIBDIR = $(patsubst $(PREFIX)/%,$${exec_prefix}/%,$(LIBDIR))
INSTALL_PC_INCLUDEDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))
INSTALL_SIZEOF_VOID_P = $(shell echo __SIZEOF_POINTER__ | $(CC) -E -P - 2>/dev/null | tail -n 1)

install: all
	@test -n "$(PREFIX)" || { echo "install: PREFIX is empty" >&2; exit 2; }
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(LIBDIR)/pkgconfig" \
	    "$(DESTDIR)$(INCLUDEDIR)/autoanalyzer" "$(DESTDIR)$(DOCDIR)" \
	    "$(DESTDIR)$(DATADIR)/samples" "$(DESTDIR)$(CMAKEDIR)"
	$(INSTALL) -m 755 $(AA_BIN) "$(DESTDIR)$(BINDIR)/autoanalyzer"
	$(INSTALL) -m 755 $(AA_FPARSE) "$(DESTDIR)$(BINDIR)/aa-fparse"
	@set -e; for w in $(INSTALL_WRAPPERS); do \
	    echo "ln -s autoanalyzer $(DESTDIR)$(BINDIR)/autoanalyzer-$$w"; \
	    rm -f "$(DESTDIR)$(BINDIR)/autoanalyzer-$$w"; \
	    ln -s autoanalyzer "$(DESTDIR)$(BINDIR)/autoanalyzer-$$w"; \
	done
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
	@# MPI implementation's own pkg-config module, for Requires.private
	@set -e; mpipc=; \
	for m in ompi-c mpich mpi-c; do \
	    if pkg-config --exists $$m 2>/dev/null; then mpipc=$$m; break; fi; done; \
	libr='$(call INSTALL_REL,$(LIBDIR))/cmake/AutoAnalyzer'; \
	case "$$libr" in /*) relprefix='$(PREFIX)' ;; \
	    *) relprefix=$$(echo "$$libr" | sed 's|[^/][^/]*|..|g') ;; esac; \
	subst() { sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@LIBDIR@|$(INSTALL_PC_LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INSTALL_PC_INCLUDEDIR)|g' \
	    -e "s|@MPI_PC@|$$mpipc|g" -e '/^Requires.private: *$$/d' "$$1" > "$$2"; \
	    chmod 644 "$$2"; }; \
	for p in $(INSTALL_PC); do \
	    echo "write $(DESTDIR)$(LIBDIR)/pkgconfig/$$p.pc"; \
	    subst mk/pkg/$$p.pc.in "$(DESTDIR)$(LIBDIR)/pkgconfig/$$p.pc"; \
	done; \
	for c in $(INSTALL_CMAKE); do \
	    echo "write $(DESTDIR)$(CMAKEDIR)/$$c.cmake"; \
	    sed -e "s|@REL_PREFIX@|$$relprefix|g" -e 's|@VERSION@|$(VERSION)|g' \
	        -e 's|@LIBDIR@|$(call INSTALL_REL,$(LIBDIR))|g' \
	        -e 's|@INCLUDEDIR@|$(call INSTALL_REL,$(INCLUDEDIR))|g' \
	        -e 's|@BINDIR@|$(call INSTALL_REL,$(BINDIR))|g' \
	        -e 's|@SIZEOF_VOID_P@|$(INSTALL_SIZEOF_VOID_P)|g' \
	        mk/pkg/$$c.cmake.in > "$(DESTDIR)$(CMAKEDIR)/$$c.cmake"; \
	    chmod 644 "$(DESTDIR)$(CMAKEDIR)/$$c.cmake"; \
	done
	$(INSTALL) -m 644 $(wildcard README.md docs/*.md docs/*.xsd) "$(DESTDIR)$(DOCDIR)/"
	$(INSTALL) -m 644 $(INSTALL_SAMPLES) "$(DESTDIR)$(DATADIR)/samples/"

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/autoanalyzer" "$(DESTDIR)$(BINDIR)/aa-fparse" \
	    $(foreach w,$(INSTALL_WRAPPERS),"$(DESTDIR)$(BINDIR)/autoanalyzer-$(w)") \
	    "$(DESTDIR)$(LIBDIR)"/libautoanalyzer*.a "$(DESTDIR)$(LIBDIR)"/libautoanalyzer*.so* \
	    $(foreach p,$(INSTALL_PC),"$(DESTDIR)$(LIBDIR)/pkgconfig/$(p).pc") \
	    $(foreach c,$(INSTALL_CMAKE),"$(DESTDIR)$(CMAKEDIR)/$(c).cmake")
	@rmdir "$(DESTDIR)$(CMAKEDIR)" "$(DESTDIR)$(LIBDIR)/cmake" 2>/dev/null || true
	rm -rf "$(DESTDIR)$(INCLUDEDIR)/autoanalyzer" "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(DATADIR)"

.PHONY: install uninstall
