// Rendering one ref through a parsed format, with git's nesting model: %(align) and %(if)
// open a frame whose output is post-processed at %(end); %(else) opens a second frame for the
// other branch. Quoting applies to a value written straight into the outermost frame, and to
// the whole output of an outermost %(align)/%(if) block when it ends (literals are never
// quoted), as in git.
#include <cctype>
#include <memory>

#include "cli/git_color.h"
#include "cli/ref_format.h"
#include "cli/ref_quote.h"

namespace reftab::cli {
namespace {

struct IfState {
  IfCompare compare = IfCompare::kNone;
  std::string compare_to;
  bool then_seen = false;
  bool else_seen = false;
  bool satisfied = false;
};

struct Frame {
  enum End : unsigned char { kNone, kAlign, kIf } end = kNone;
  std::string out;
  const UsedAtom* align = nullptr;
  std::shared_ptr<IfState> cond;
};

// Display columns of a UTF-8 string (one per code point; invalid UTF-8: one per byte).
size_t DisplayWidth(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return s.size();
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return s.size();
    }
    i += len;
    ++n;
  }
  return n;
}

std::string Align(const std::string& s, unsigned width, AlignPosition pos) {
  size_t shown = DisplayWidth(s);
  if (shown >= width) return s;
  size_t pad = width - shown;
  switch (pos) {
    case AlignPosition::kLeft: return s + std::string(pad, ' ');
    case AlignPosition::kRight: return std::string(pad, ' ') + s;
    case AlignPosition::kMiddle: break;
  }
  size_t left = pad / 2;
  return std::string(left, ' ') + s + std::string(pad - left, ' ');
}

bool Blank(const std::string& s) {
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

class Renderer {
 public:
  explicit Renderer(QuoteStyle quote) : quote_(quote) { stack_.emplace_back(); }

  void Literal(const std::string& s) { stack_.back().out.append(s); }

  void Value(const std::string& s) {
    if (stack_.size() == 1) {
      AppendQuoted(quote_, s, &stack_.back().out);
    } else {
      stack_.back().out.append(s);
    }
  }

  bool Atom(const UsedAtom& a, const AtomValue& v, std::string* error) {
    switch (a.kind) {
      case AtomKind::kAlign: Push(Frame::kAlign)->align = &a; return true;
      case AtomKind::kIf: {
        auto cond = std::make_shared<IfState>();
        cond->compare = a.compare;
        cond->compare_to = a.compare_to;
        Push(Frame::kIf)->cond = std::move(cond);
        return true;
      }
      case AtomKind::kThen: return Then(error);
      case AtomKind::kElse: return Else(error);
      case AtomKind::kEnd: return End(error);
      default: Value(v.s); return true;
    }
  }

  bool Finish(bool reset_color, std::string* out, std::string* error) {
    if (reset_color) Value(kGitColorReset);
    if (stack_.size() > 1) {
      *error = "format: %(end) atom missing";
      return false;
    }
    out->append(stack_.back().out);
    return true;
  }

 private:
  Frame* Push(Frame::End end) {
    stack_.emplace_back();
    stack_.back().end = end;
    return &stack_.back();
  }

  // Ends the top frame: its output goes to the frame below.
  void Pop() {
    std::string out = std::move(stack_.back().out);
    stack_.pop_back();
    stack_.back().out.append(out);
  }

  IfState* TopCondition() {
    Frame& top = stack_.back();
    return top.end == Frame::kIf ? top.cond.get() : nullptr;
  }

  bool Then(std::string* error) {
    IfState* c = TopCondition();
    if (!c) return Fail(error, "format: %(then) atom used without a %(if) atom");
    if (c->then_seen) return Fail(error, "format: %(then) atom used more than once");
    if (c->else_seen) return Fail(error, "format: %(then) atom used after %(else)");
    c->then_seen = true;
    std::string& out = stack_.back().out;
    switch (c->compare) {
      case IfCompare::kEquals: c->satisfied = out == c->compare_to; break;
      case IfCompare::kNotEquals: c->satisfied = out != c->compare_to; break;
      case IfCompare::kNone: c->satisfied = !out.empty() && !Blank(out); break;
    }
    out.clear();
    return true;
  }

  bool Else(std::string* error) {
    IfState* c = TopCondition();
    if (!c) return Fail(error, "format: %(else) atom used without a %(if) atom");
    if (!c->then_seen) return Fail(error, "format: %(else) atom used without a %(then) atom");
    if (c->else_seen) return Fail(error, "format: %(else) atom used more than once");
    c->else_seen = true;
    std::shared_ptr<IfState> shared = stack_.back().cond;
    Push(Frame::kIf)->cond = std::move(shared);
    return true;
  }

  // git's if_then_else_handler: keeps the branch the condition chose.
  bool EndIf(std::string* error) {
    IfState* c = TopCondition();
    if (!c->then_seen) return Fail(error, "format: %(if) atom used without a %(then) atom");
    if (c->else_seen) {
      // The top frame holds the %(else) branch, the one below the %(then) branch.
      Frame& below = stack_[stack_.size() - 2];
      if (!c->satisfied) below.out.swap(stack_.back().out);
      stack_.back().out.clear();
      Pop();
    } else if (!c->satisfied) {
      stack_.back().out.clear();
    }
    return true;
  }

  bool End(std::string* error) {
    Frame& top = stack_.back();
    if (top.end == Frame::kNone) {
      return Fail(error, "format: %(end) atom used without corresponding atom");
    }
    if (top.end == Frame::kAlign) {
      top.out = Align(top.out, top.align->width, top.align->position);
    } else if (!EndIf(error)) {
      return false;
    }
    if (stack_.size() == 2 && quote_ != QuoteStyle::kNone) {
      std::string quoted;
      AppendQuoted(quote_, stack_.back().out, &quoted);
      stack_.back().out.swap(quoted);
    }
    Pop();
    return true;
  }

  static bool Fail(std::string* error, const char* message) {
    *error = message;
    return false;
  }

  QuoteStyle quote_;
  std::vector<Frame> stack_;
};

bool RenderNested(const RefFormat& format, const std::vector<AtomValue>& values, std::string* out,
                  std::string* error);

// Whether `format` uses %(align) or %(if)/%(then)/%(else)/%(end), the atoms that need the
// frame stack.
bool Nests(const RefFormat& format) {
  for (const FormatPiece& p : format.pieces) {
    if (!p.is_atom) continue;
    switch (format.atoms[p.atom].kind) {
      case AtomKind::kAlign:
      case AtomKind::kIf:
      case AtomKind::kThen:
      case AtomKind::kElse:
      case AtomKind::kEnd: return true;
      default: break;
    }
  }
  return false;
}

}  // namespace

// A format without nesting (nearly every one, and the default ones) writes literals and
// values straight into `out`, each value quoted as in the outermost frame: the same bytes as
// the frame stack gives, without its allocations for every ref of a million-ref listing.
bool RenderRef(const RefFormat& format, const std::vector<AtomValue>& values, std::string* out,
               std::string* error) {
  if (Nests(format)) return RenderNested(format, values, out, error);
  for (const FormatPiece& p : format.pieces) {
    if (p.is_atom) {
      AppendQuoted(format.quote, values[p.atom].s, out);
    } else {
      out->append(p.literal);
    }
  }
  if (format.reset_color_at_eol) AppendQuoted(format.quote, kGitColorReset, out);
  return true;
}

namespace {

bool RenderNested(const RefFormat& format, const std::vector<AtomValue>& values, std::string* out,
                  std::string* error) {
  Renderer r(format.quote);
  for (const FormatPiece& p : format.pieces) {
    if (!p.is_atom) {
      r.Literal(p.literal);
    } else if (!r.Atom(format.atoms[p.atom], values[p.atom], error)) {
      return false;
    }
  }
  return r.Finish(format.reset_color_at_eol, out, error);
}

}  // namespace
}  // namespace reftab::cli
