/*
 * instrument/fortran/aa_fparse.cpp -- the Fortran bridge of the instrumenter:
 * a small tool linked with flang's parser libraries (libFortranParser,
 * flang-19) that prescans and parses one Fortran file exactly as flang's
 * front end does (fixed or free form, INCLUDE lines, OpenMP sentinels when
 * asked) and prints the constructs the instrumenter needs as a line-oriented
 * description with source positions (docs/instrument.md, "Fortran").  It
 * decides nothing about instrumentation: instrument/fortran.c reads the
 * description, selects regions and edits the text.  This is the only C++ in
 * the project.
 *
 * Usage: aa-fparse [--fixed|--free] [--openmp] [--name NAME] [-I DIR]... FILE
 * Exit 0 with the description on stdout; 1 with flang's messages on stderr
 * ("file:line:col: error: ...") when the file does not parse; 2 usage.
 *
 * Records (fields separated by one space; names are lowercase Fortran
 * names, positions are line and column, 1-based, in FILE; 0 0 when a
 * position lies in another file, such as an INCLUDEd one):
 *   AAFPARSE 1 fixed|free
 *   L unit label line                      a statement label
 *   U unit parent kind name line endline execline execcol fall_line fall_col fall_label flags
 *       kind program|subroutine|function|procedure; fall_*: the END or CONTAINS
 *       statement where control falls off the execution part; flags: a comma
 *       list of pure, entry, or -
 *   D loop unit parent line col endline endcol label form name flags
 *       form block|label|while|concurrent; label: terminal label (0 for block);
 *       endline/endcol: end of END DO or of the terminal statement;
 *       flags: directive (a directive or OpenMP construct precedes it), -
 *   S kind unit line col endline endcol ifline ifcol label arg...
 *       a statement that leaves regions or is one: kind return, stop, exit,
 *       cycle, goto, branch (computed/assigned GOTO, arithmetic IF, I/O
 *       ERR=/END=/EOR=, alternate-return CALL), call (CALL of MPI_* or
 *       PMPI_*); ifline/ifcol: the IF of a one-line IF statement holding it
 *       (0 0 otherwise); label: its own label (0 none); args: exit/cycle:
 *       loop id of the target DO, or c<line> for a named non-DO construct
 *       (exit), or ?; goto/branch: target labels (branch: * for unknown);
 *       call: the routine name, then alt when it has alternate returns.
 *   E unit line kind name                  for the size rules, one per
 *       executable statement (kind s, name -; END DO/END IF/ELSE/CASE and
 *       the like are not counted), CALL (kind c, the routine; % for a
 *       type-bound call), I/O statement (kind i, name -) and function
 *       reference or array element (kind f, the name; the parser cannot
 *       tell them apart without semantics), all in execution parts
 *   A unit name                            a name the unit declares as an
 *       array (DIMENSION, array spec in a type declaration or COMMON) or
 *       as a statement function
 *   T loop lower upper step                a DO whose bounds (and step) are
 *       integer literals
 */
#include "flang/Common/Fortran-features.h"
#include "flang/Parser/parse-tree-visitor.h"
#include "flang/Parser/parse-tree.h"
#include "flang/Parser/parsing.h"
#include "flang/Parser/provenance.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace Fortran;

namespace {

struct Pos {
    int line = 0, col = 0, eline = 0, ecol = 0;
};

struct Frame {
    enum Kind { DO_BLOCK, DO_LABEL, OTHER } kind;
    int id;                  /* loop id, or the construct's line */
    std::string name;        /* construct name */
    unsigned long long label; /* DO_LABEL: terminal label */
    Pos pos;
    std::string form;
    bool directive = false;
    int unit, parent;
};

struct Unit {
    int id, parent;
    std::string kind, name;
    Pos begin;
    int execline = 0, execcol = 0;
    bool want_exec = false;
    bool pure = false, entry = false;
    bool in_exec = false;
};

/* The first source range inside a node (a directive's position). */
struct FirstSource {
    const parser::CharBlock *cb = nullptr;
    template <typename U> bool Pre(const U &u)
    {
        if (cb)
            return false;
        if constexpr (requires { u.source; }) {
            if constexpr (std::is_same_v<std::decay_t<decltype(u.source)>, parser::CharBlock>) {
                cb = &u.source;
                return false;
            }
        }
        return true;
    }
    template <typename U> void Post(const U &) {}
};

class Describer {
public:
    Describer(parser::Parsing &p, const parser::SourceFile *main, std::string name)
        : parsing_(p), main_(main), name_(std::move(name))
    {
    }

    Pos where(const parser::CharBlock &cb)
    {
        Pos p;
        auto r = parsing_.allCooked().GetSourcePositionRange(cb);
        if (!r)
            return p;
        /* the main file itself, or the file its cpp line markers name */
        if (&*r->first.sourceFile != main_ ||
            (*r->first.path != main_->path() && *r->first.path != name_))
            return p;
        p.line = r->first.line;
        p.col = r->first.column;
        p.eline = r->second.line;
        p.ecol = r->second.column;
        return p;
    }

    /* ---- generic hooks ----------------------------------------------------------- */
    template <typename T> bool Pre(const T &) { return true; }
    template <typename T> void Post(const T &) {}

    template <typename T> bool Pre(const parser::Statement<T> &s)
    {
        Pos p = where(s.source);
        if (want_exec_ && !units_.empty() && units_.back().want_exec) {
            units_.back().execline = p.line;
            units_.back().execcol = p.col;
            units_.back().want_exec = false;
        }
        want_exec_ = false;
        cur_ = p;
        cur_label_ = s.label ? *s.label : 0;
        if (s.label && !units_.empty())
            out("L %d %llu %d\n", units_.back().id, (unsigned long long)*s.label, p.line);
        if constexpr (!std::is_same_v<T, parser::EndDoStmt> && !std::is_same_v<T, parser::EndIfStmt> &&
                      !std::is_same_v<T, parser::ElseStmt> && !std::is_same_v<T, parser::EndSelectStmt> &&
                      !std::is_same_v<T, parser::CaseStmt> && !std::is_same_v<T, parser::EndBlockStmt> &&
                      !std::is_same_v<T, parser::EndAssociateStmt>)
            if (in_exec())
                out("E %d %d s -\n", units_.back().id, p.line);
        return true;
    }
    template <typename T> void Post(const parser::Statement<T> &s)
    {
        /* a label ends every label DO waiting for it (shared terminals too) */
        if (!s.label)
            return;
        Pos p = where(s.source);
        while (!frames_.empty() && frames_.back().kind == Frame::DO_LABEL &&
               frames_.back().label == *s.label) {
            Frame f = frames_.back();
            frames_.pop_back();
            f.pos.eline = p.eline;
            f.pos.ecol = p.ecol;
            print_loop(f);
        }
    }

    /* ---- program units ----------------------------------------------------------- */
    bool Pre(const parser::MainProgram &x)
    {
        const auto &ps = std::get<std::optional<parser::Statement<parser::ProgramStmt>>>(x.t);
        std::string name = ps ? ps->statement.v.ToString() : "main";
        Pos p = ps ? where(ps->source) : Pos{};
        begin_unit("program", name, p, false);
        return true;
    }
    void Post(const parser::MainProgram &x) { end_unit(x); }
    bool Pre(const parser::SubroutineSubprogram &x)
    {
        const auto &st = std::get<parser::Statement<parser::SubroutineStmt>>(x.t);
        begin_unit("subroutine", std::get<parser::Name>(st.statement.t).ToString(),
                   where(st.source), is_pure(std::get<0>(st.statement.t)));
        return true;
    }
    void Post(const parser::SubroutineSubprogram &x) { end_unit(x); }
    bool Pre(const parser::FunctionSubprogram &x)
    {
        const auto &st = std::get<parser::Statement<parser::FunctionStmt>>(x.t);
        begin_unit("function", std::get<parser::Name>(st.statement.t).ToString(),
                   where(st.source), is_pure(std::get<0>(st.statement.t)));
        return true;
    }
    void Post(const parser::FunctionSubprogram &x) { end_unit(x); }
    bool Pre(const parser::SeparateModuleSubprogram &x)
    {
        const auto &st = std::get<parser::Statement<parser::MpSubprogramStmt>>(x.t);
        begin_unit("procedure", st.statement.v.ToString(), where(st.source), false);
        return true;
    }
    void Post(const parser::SeparateModuleSubprogram &x) { end_unit(x); }
    /* interface bodies have no execution part: nothing in them is a region */
    bool Pre(const parser::InterfaceBody &) { return false; }

    void Post(const parser::ExecutionPart &)
    {
        if (!units_.empty())
            units_.back().in_exec = false;
    }
    bool Pre(const parser::ExecutionPart &)
    {
        if (!units_.empty())
            units_.back().in_exec = true;
        if (!units_.empty() && depth_of_exec_ == 0)
            units_.back().want_exec = true;
        want_exec_ = true;
        return true;
    }
    bool Pre(const parser::InternalSubprogramPart &)
    {
        want_exec_ = false;
        if (!units_.empty())
            units_.back().want_exec = false;
        return true;
    }
    bool Pre(const parser::EntryStmt &)
    {
        if (!units_.empty())
            units_.back().entry = true;
        return true;
    }

    /* ---- directives ---------------------------------------------------------------- */
    bool Pre(const parser::OpenMPConstruct &x) { directive_here(x); return true; }
    bool Pre(const parser::CompilerDirective &x)
    {
        directive_pending_ = true;
        note_exec(x.source);
        return true;
    }
    bool Pre(const parser::OpenACCConstruct &x) { directive_here(x); return true; }

    /* ---- loops and named constructs ------------------------------------------------ */
    bool Pre(const parser::LabelDoStmt &x)
    {
        Frame f = new_loop(Frame::DO_LABEL, "");
        f.label = std::get<parser::Label>(x.t);
        f.form = form_of(std::get<std::optional<parser::LoopControl>>(x.t), "label");
        frames_.push_back(f);
        print_bounds(f.id, std::get<std::optional<parser::LoopControl>>(x.t));
        return true;
    }
    bool Pre(const parser::NonLabelDoStmt &x)
    {
        const auto &n = std::get<std::optional<parser::Name>>(x.t);
        Frame f = new_loop(Frame::DO_BLOCK, n ? n->ToString() : "");
        f.form = form_of(std::get<std::optional<parser::LoopControl>>(x.t), "block");
        frames_.push_back(f);
        print_bounds(f.id, std::get<std::optional<parser::LoopControl>>(x.t));
        return true;
    }

    /* ---- what the size rules need: calls, I/O, function references, arrays ------ */
    bool Pre(const parser::FunctionReference &x)
    {
        if (in_exec()) {
            const auto &pd = std::get<parser::ProcedureDesignator>(x.v.t);
            const auto *n = std::get_if<parser::Name>(&pd.u);
            out("E %d %d f %s\n", units_.back().id, cur_.line, n ? n->ToString().c_str() : "%");
        }
        return true;
    }
    bool Pre(const parser::ReadStmt &) { io(); return true; }
    bool Pre(const parser::WriteStmt &) { io(); return true; }
    bool Pre(const parser::PrintStmt &) { io(); return true; }
    bool Pre(const parser::OpenStmt &) { io(); return true; }
    bool Pre(const parser::CloseStmt &) { io(); return true; }
    bool Pre(const parser::InquireStmt &) { io(); return true; }
    bool Pre(const parser::BackspaceStmt &) { io(); return true; }
    bool Pre(const parser::EndfileStmt &) { io(); return true; }
    bool Pre(const parser::RewindStmt &) { io(); return true; }
    bool Pre(const parser::FlushStmt &) { io(); return true; }
    bool Pre(const parser::WaitStmt &) { io(); return true; }
    bool Pre(const parser::EntityDecl &x)
    {
        if (std::get<std::optional<parser::ArraySpec>>(x.t))
            array(std::get<parser::ObjectName>(x.t));
        return true;
    }
    bool Pre(const parser::TypeDeclarationStmt &x)
    {
        for (const auto &a : std::get<std::list<parser::AttrSpec>>(x.t))
            if (std::holds_alternative<parser::ArraySpec>(a.u))
                for (const auto &e : std::get<std::list<parser::EntityDecl>>(x.t))
                    array(std::get<parser::ObjectName>(e.t));
        return true;
    }
    bool Pre(const parser::DimensionStmt::Declaration &x)
    {
        array(std::get<parser::Name>(x.t));
        return true;
    }
    bool Pre(const parser::CommonBlockObject &x)
    {
        if (std::get<std::optional<parser::ArraySpec>>(x.t))
            array(std::get<parser::Name>(x.t));
        return true;
    }
    bool Pre(const parser::StmtFunctionStmt &x)
    {
        array(std::get<parser::Name>(x.t));
        return true;
    }
    void Post(const parser::DoConstruct &x)
    {
        const auto &e = std::get<parser::Statement<parser::EndDoStmt>>(x.t);
        Pos p = where(e.source);
        for (size_t i = frames_.size(); i-- > 0;)
            if (frames_[i].kind == Frame::DO_BLOCK) {
                Frame f = frames_[i];
                frames_.erase(frames_.begin() + (long)i);
                f.pos.eline = p.eline;
                f.pos.ecol = p.ecol;
                print_loop(f);
                break;
            }
    }
    bool Pre(const parser::BlockStmt &x) { push_other(x.v); return true; }
    void Post(const parser::BlockConstruct &) { pop_other(); }
    bool Pre(const parser::IfThenStmt &x) { push_other(std::get<0>(x.t)); return true; }
    void Post(const parser::IfConstruct &) { pop_other(); }
    bool Pre(const parser::SelectCaseStmt &x) { push_other(std::get<0>(x.t)); return true; }
    void Post(const parser::CaseConstruct &) { pop_other(); }
    bool Pre(const parser::AssociateStmt &x) { push_other(std::get<0>(x.t)); return true; }
    void Post(const parser::AssociateConstruct &) { pop_other(); }

    /* ---- statements that leave regions ---------------------------------------------- */
    bool Pre(const parser::IfStmt &x)
    {
        if_ = cur_;
        in_if_ = true;
        const auto &a = std::get<parser::UnlabeledStatement<parser::ActionStmt>>(x.t);
        action_ = where(a.source);
        return true;
    }
    void Post(const parser::IfStmt &) { in_if_ = false; }

    bool Pre(const parser::ReturnStmt &) { stmt("return", ""); return true; }
    bool Pre(const parser::StopStmt &) { stmt("stop", ""); return true; }
    bool Pre(const parser::FailImageStmt &) { stmt("stop", ""); return true; }
    bool Pre(const parser::ExitStmt &x) { stmt("exit", target(x.v, true)); return true; }
    bool Pre(const parser::CycleStmt &x) { stmt("cycle", target(x.v, false)); return true; }
    bool Pre(const parser::GotoStmt &x) { stmt("goto", std::to_string(x.v)); return true; }
    bool Pre(const parser::ComputedGotoStmt &x)
    {
        stmt("branch", labels(std::get<std::list<parser::Label>>(x.t)));
        return true;
    }
    bool Pre(const parser::AssignedGotoStmt &x)
    {
        const auto &l = std::get<std::list<parser::Label>>(x.t);
        stmt("branch", l.empty() ? std::string("*") : labels(l));
        return true;
    }
    bool Pre(const parser::ArithmeticIfStmt &x)
    {
        stmt("branch", std::to_string(std::get<1>(x.t)) + " " + std::to_string(std::get<2>(x.t)) +
                           " " + std::to_string(std::get<3>(x.t)));
        return true;
    }
    bool Pre(const parser::ErrLabel &x) { stmt("branch", std::to_string(x.v)); return true; }
    bool Pre(const parser::EndLabel &x) { stmt("branch", std::to_string(x.v)); return true; }
    bool Pre(const parser::EorLabel &x) { stmt("branch", std::to_string(x.v)); return true; }
    bool Pre(const parser::CallStmt &x)
    {
        const auto &pd = std::get<parser::ProcedureDesignator>(x.call.t);
        std::string alts;
        for (const auto &a : std::get<std::list<parser::ActualArgSpec>>(x.call.t))
            if (const auto *ar = std::get_if<parser::AltReturnSpec>(&std::get<parser::ActualArg>(a.t).u))
                alts += (alts.empty() ? "" : " ") + std::to_string(ar->v);
        if (!alts.empty())
            stmt("branch", alts);
        if (in_exec()) {
            const auto *cn = std::get_if<parser::Name>(&pd.u);
            out("E %d %d c %s\n", units_.back().id, cur_.line, cn ? cn->ToString().c_str() : "%");
        }
        if (const auto *n = std::get_if<parser::Name>(&pd.u)) {
            std::string s = n->ToString();
            if (s.rfind("mpi_", 0) == 0 || s.rfind("pmpi_", 0) == 0)
                stmt("call", s + (alts.empty() ? "" : " alt"));
        }
        return true;
    }

    std::string text() const { return out_; }

private:
    parser::Parsing &parsing_;
    const parser::SourceFile *main_;
    std::string name_;
    std::string out_;
    std::vector<Unit> units_;
    std::vector<Frame> frames_;
    int next_unit_ = 1, next_loop_ = 1, depth_of_exec_ = 0;
    bool want_exec_ = false, directive_pending_ = false, in_if_ = false;
    Pos cur_, if_, action_;
    unsigned long long cur_label_ = 0;

    bool in_exec() const { return !units_.empty() && units_.back().in_exec; }
    void io()
    {
        if (in_exec())
            out("E %d %d i -\n", units_.back().id, cur_.line);
    }
    void array(const parser::Name &n)
    {
        if (!units_.empty())
            out("A %d %s\n", units_.back().id, n.ToString().c_str());
    }
    static bool int_literal(const parser::Expr &e, long long &v)
    {
        if (const auto *lc = std::get_if<parser::LiteralConstant>(&e.u)) {
            if (const auto *il = std::get_if<parser::IntLiteralConstant>(&lc->u)) {
                v = std::strtoll(std::get<parser::CharBlock>(il->t).ToString().c_str(), nullptr, 10);
                return true;
            }
        } else if (const auto *ng = std::get_if<parser::Expr::Negate>(&e.u)) {
            if (int_literal(ng->v.value(), v)) {
                v = -v;
                return true;
            }
        } else if (const auto *pa = std::get_if<parser::Expr::Parentheses>(&e.u)) {
            return int_literal(pa->v.value(), v);
        }
        return false;
    }
    void print_bounds(int id, const std::optional<parser::LoopControl> &lc)
    {
        if (!lc)
            return;
        const auto *b = std::get_if<parser::LoopControl::Bounds>(&lc->u);
        long long lo, hi, st = 1;
        if (!b || !int_literal(b->lower.thing.value(), lo) || !int_literal(b->upper.thing.value(), hi) ||
            (b->step && !int_literal(b->step->thing.value(), st)))
            return;
        out("T %d %lld %lld %lld\n", id, lo, hi, st);
    }

    void out(const char *fmt, ...) __attribute__((format(printf, 2, 3)))
    {
        char buf[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        out_ += buf;
    }

    static bool is_pure(const std::list<parser::PrefixSpec> &l)
    {
        bool pure = false, impure = false;
        for (const auto &p : l) {
            if (std::holds_alternative<parser::PrefixSpec::Pure>(p.u) ||
                std::holds_alternative<parser::PrefixSpec::Elemental>(p.u))
                pure = true;
            if (std::holds_alternative<parser::PrefixSpec::Impure>(p.u))
                impure = true;
        }
        return pure && !impure;
    }

    void begin_unit(const char *kind, const std::string &name, Pos p, bool pure)
    {
        Unit u;
        u.id = next_unit_++;
        u.parent = units_.empty() ? 0 : units_.back().id;
        u.kind = kind;
        u.name = name;
        u.begin = p;
        u.pure = pure;
        units_.push_back(u);
        frames_stack_.push_back(std::move(frames_));
        frames_.clear();
    }
    std::vector<std::vector<Frame>> frames_stack_;

    template <typename T> void end_unit(const T &x)
    {
        Unit u = units_.back();
        units_.pop_back();
        const auto &isp = std::get<std::optional<parser::InternalSubprogramPart>>(x.t);
        Pos fall, endp;
        unsigned long long fall_label = 0;
        const auto &end = std::get<std::tuple_size_v<decltype(x.t)> - 1>(x.t);
        endp = where(end.source);
        if (isp) {
            fall = where(std::get<parser::Statement<parser::ContainsStmt>>(isp->t).source);
        } else {
            fall = endp;
            fall_label = end.label ? *end.label : 0;
        }
        std::string flags;
        if (u.pure)
            flags += "pure";
        if (u.entry)
            flags += std::string(flags.empty() ? "" : ",") + "entry";
        out("U %d %d %s %s %d %d %d %d %d %d %llu %s\n", u.id, u.parent, u.kind.c_str(),
            u.name.c_str(), u.begin.line, endp.eline, u.execline, u.execcol, fall.line, fall.col,
            fall_label, flags.empty() ? "-" : flags.c_str());
        frames_ = std::move(frames_stack_.back());
        frames_stack_.pop_back();
    }

    void note_exec(const parser::CharBlock &cb)
    {
        if (want_exec_ && !units_.empty() && units_.back().want_exec) {
            Pos p = where(cb);
            units_.back().execline = p.line;
            units_.back().execcol = p.col;
            units_.back().want_exec = false;
            want_exec_ = false;
        }
    }
    template <typename T> void directive_here(const T &x)
    {
        directive_pending_ = true;
        FirstSource first;
        parser::Walk(x, first);
        if (first.cb)
            note_exec(*first.cb);
    }

    static std::string form_of(const std::optional<parser::LoopControl> &lc, const char *dflt)
    {
        if (!lc)
            return dflt;
        if (std::holds_alternative<parser::LoopControl::Concurrent>(lc->u))
            return "concurrent";
        if (std::holds_alternative<parser::ScalarLogicalExpr>(lc->u))
            return "while";
        return dflt;
    }

    Frame new_loop(Frame::Kind k, const std::string &name)
    {
        Frame f;
        f.kind = k;
        f.id = next_loop_++;
        f.name = name;
        f.label = 0;
        f.pos = cur_;
        f.directive = directive_pending_;
        for (const auto &g : frames_)
            if (g.kind != Frame::OTHER && g.directive)
                f.directive = true; /* inside a loop under a directive */
        directive_pending_ = false;
        f.unit = units_.empty() ? 0 : units_.back().id;
        f.parent = 0;
        for (size_t i = frames_.size(); i-- > 0;)
            if (frames_[i].kind != Frame::OTHER) {
                f.parent = frames_[i].id;
                break;
            }
        return f;
    }
    void print_loop(const Frame &f)
    {
        out("D %d %d %d %d %d %d %d %llu %s %s %s\n", f.id, f.unit, f.parent, f.pos.line,
            f.pos.col, f.pos.eline, f.pos.ecol, f.label, f.form.c_str(),
            f.name.empty() ? "-" : f.name.c_str(), f.directive ? "directive" : "-");
    }
    void push_other(const std::optional<parser::Name> &n)
    {
        Frame f;
        f.kind = Frame::OTHER;
        f.id = cur_.line;
        f.name = n ? n->ToString() : "";
        f.label = 0;
        frames_.push_back(f);
        directive_pending_ = false;
    }
    void pop_other()
    {
        for (size_t i = frames_.size(); i-- > 0;)
            if (frames_[i].kind == Frame::OTHER) {
                frames_.erase(frames_.begin() + (long)i);
                return;
            }
    }

    std::string target(const std::optional<parser::Name> &n, bool exit)
    {
        for (size_t i = frames_.size(); i-- > 0;) {
            const Frame &f = frames_[i];
            if (n) {
                if (f.name == n->ToString())
                    return f.kind == Frame::OTHER ? "c" + std::to_string(f.id) : std::to_string(f.id);
            } else if (f.kind != Frame::OTHER) {
                return std::to_string(f.id);
            }
        }
        (void)exit;
        return "?";
    }
    static std::string labels(const std::list<parser::Label> &l)
    {
        std::string s;
        for (auto v : l)
            s += (s.empty() ? "" : " ") + std::to_string(v);
        return s;
    }
    void stmt(const char *kind, const std::string &args)
    {
        Pos p = in_if_ ? action_ : cur_;
        int unit = units_.empty() ? 0 : units_.back().id;
        out("S %s %d %d %d %d %d %d %d %llu %s\n", kind, unit, p.line, p.col, p.eline, p.ecol,
            in_if_ ? if_.line : 0, in_if_ ? if_.col : 0, cur_label_, args.c_str());
    }
};

bool ends_with(const std::string &s, const char *suf)
{
    size_t n = strlen(suf);
    return s.size() >= n && s.compare(s.size() - n, n, suf) == 0;
}

} // namespace

int main(int argc, char **argv)
{
    parser::Options options;
    std::string path, name;
    int form = -1;
    options.predefinitions.emplace_back("__flang__", "1");
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--fixed")
            form = 1;
        else if (a == "--free")
            form = 0;
        else if (a == "--openmp")
            options.features.Enable(common::LanguageFeature::OpenMP);
        else if (a == "--name" && i + 1 < argc)
            name = argv[++i];
        else if (a == "-I" && i + 1 < argc)
            options.searchDirectories.push_back(argv[++i]);
        else if (a.rfind("-I", 0) == 0 && a.size() > 2)
            options.searchDirectories.push_back(a.substr(2));
        else if (a[0] == '-' || !path.empty()) {
            fprintf(stderr, "usage: aa-fparse [--fixed|--free] [--openmp] [--name NAME] [-I DIR]... FILE\n");
            return 2;
        } else
            path = a;
    }
    if (path.empty()) {
        fprintf(stderr, "usage: aa-fparse [--fixed|--free] [--openmp] [--name NAME] [-I DIR]... FILE\n");
        return 2;
    }
    if (form < 0) {
        static const char *fixed[] = {".f", ".F", ".for", ".FOR", ".ftn", ".FTN", ".fpp", ".FPP", ".i"};
        form = 0;
        for (const char *s : fixed)
            if (ends_with(path, s))
                form = 1;
    }
    options.isFixedForm = form == 1;
    options.searchDirectories.push_back(".");
    parser::AllSources sources;
    parser::AllCookedSources cooked{sources};
    parser::Parsing parsing{cooked};
    const parser::SourceFile *main_file = parsing.Prescan(path, options);
    if (!parsing.messages().AnyFatalError())
        parsing.Parse(llvm::nulls());
    bool bad = !main_file || parsing.messages().AnyFatalError() || !parsing.parseTree() ||
               !parsing.consumedWholeFile();
    if (bad) {
        parsing.messages().Emit(llvm::errs(), cooked, /*echoSourceLines=*/false);
        llvm::errs().flush();
        if (!parsing.messages().AnyFatalError())
            fprintf(stderr, "%s:1:1: error: the file does not parse as Fortran\n", path.c_str());
        return 1;
    }
    Describer d{parsing, main_file, name.empty() ? path : name};
    parser::Walk(*parsing.parseTree(), d);
    printf("AAFPARSE 1 %s\n%s", form == 1 ? "fixed" : "free", d.text().c_str());
    return 0;
}
