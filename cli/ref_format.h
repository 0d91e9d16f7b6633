// The format language of `git for-each-ref --format` (and its --sort keys): a format string
// parsed once into literal pieces and atoms, each atom with its modifiers, with git's own
// error messages for what git refuses. Rendering a ref (ref_format_render.cc) walks the pieces
// with git's nesting rules for %(if)/%(then)/%(else)/%(align)/%(end) and quoting styles.
#ifndef REFTAB_CLI_REF_FORMAT_H_
#define REFTAB_CLI_REF_FORMAT_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/git/describe.h"
#include "store/git/trailer.h"

namespace reftab::cli {

// git's atom names, in git's table order.
enum class AtomKind : uint8_t {
  kRefname,
  kObjecttype,
  kObjectsize,
  kObjectname,
  kDeltabase,
  kTree,
  kParent,
  kNumparent,
  kObject,
  kType,
  kTag,
  kAuthor,
  kAuthorname,
  kAuthoremail,
  kAuthordate,
  kCommitter,
  kCommittername,
  kCommitteremail,
  kCommitterdate,
  kTagger,
  kTaggername,
  kTaggeremail,
  kTaggerdate,
  kCreator,
  kCreatordate,
  kDescribe,
  kSubject,
  kBody,
  kTrailers,
  kContents,
  kSignature,
  kRaw,
  kUpstream,
  kPush,
  kSymref,
  kFlag,
  kHead,
  kColor,
  kWorktreepath,
  kAlign,
  kEnd,
  kIf,
  kThen,
  kElse,
  kRest,
  kAheadBehind,
  kIsBase,
};

enum class QuoteStyle : uint8_t { kNone, kShell, kPerl, kPython, kTcl };

enum class RefnameOption : uint8_t { kNormal, kShort, kLstrip, kRstrip };
enum class RemoteOption : uint8_t { kRef, kTrack, kTrackShort, kRemoteName, kRemoteRef };
enum class OidOption : uint8_t { kFull, kShort, kLength };
enum class ContentsOption : uint8_t {
  kBare,
  kBody,
  kBodyDep,
  kSignature,
  kSubject,
  kSubjectSanitize,
  kLength,
  kLines,
  kTrailers,
};
enum class SignatureOption : uint8_t {
  kBare,
  kGrade,
  kSigner,
  kKey,
  kFingerprint,
  kPrimaryKeyFingerprint,
  kTrustLevel,
};
enum class AlignPosition : uint8_t { kLeft, kMiddle, kRight };
enum class IfCompare : uint8_t { kNone, kEquals, kNotEquals };
enum EmailOption : uint8_t {
  kEmailRaw = 0,
  kEmailTrim = 1,
  kEmailLocalpart = 2,
  kEmailMailmap = 4
};

// One distinct atom of a format (git keeps one per distinct spelling, "*" and arguments
// included) with what its arguments say.
struct UsedAtom {
  AtomKind kind = AtomKind::kRefname;
  std::string name;  // as written between "%(" and ")", e.g. "*refname:short"
  bool deref = false;
  bool numeric = false;       // compares as a number (sizes, dates without a format)
  bool needs_object = false;  // git's SOURCE_OBJ/SOURCE_OTHER: reads the object database
  // refname, symref, upstream, push
  RefnameOption refname = RefnameOption::kNormal;
  int strip = 0;
  // upstream, push
  RemoteOption remote = RemoteOption::kRef;
  bool nobracket = false;
  bool push = false;
  // objectname, tree, parent
  OidOption oid = OidOption::kFull;
  unsigned oid_length = 0;
  // objectsize:disk, raw:size
  bool disk = false;
  bool raw_size = false;
  // subject, body, contents
  ContentsOption contents = ContentsOption::kBare;
  unsigned lines = 0;
  // *name:mailmap, *email options
  bool mailmap = false;
  unsigned email = kEmailRaw;
  // align
  unsigned width = 0;
  AlignPosition position = AlignPosition::kLeft;
  // if
  IfCompare compare = IfCompare::kNone;
  std::string compare_to;
  // color: the escape sequence ("" when colours are off)
  std::string color;
  // trailers, contents:trailers
  GitTrailerOptions trailers;
  // signature
  SignatureOption signature = SignatureOption::kBare;
  // describe
  GitDescribeOptions describe;
  // ahead-behind, is-base: the commit as written, and the commit it names (set by the command)
  std::string base_name;
  std::array<uint8_t, 32> base{};
};

// A piece of a parsed format: literal bytes, or an index into RefFormat::atoms.
struct FormatPiece {
  bool is_atom = false;
  uint32_t atom = 0;
  std::string literal;
};

struct RefFormat {
  std::vector<UsedAtom> atoms;
  std::vector<FormatPiece> pieces;
  QuoteStyle quote = QuoteStyle::kNone;
  bool use_color = false;
  bool reset_color_at_eol = false;  // a %(color:...) other than reset was used
  bool needs_symref = false;
};

// Outcome of parsing; `message` is git's text without "fatal: " / "error: ".
struct FormatError {
  enum Kind : uint8_t { kNone, kFatal, kUsage } kind = kNone;
  std::string message;
  std::string error_line;  // an "error: ..." git prints before the fatal line ("" if none)
  bool ok() const { return kind == kNone; }
};

// Parses `text` (git's verify_ref_format) into `format`, whose quote and use_color are set.
// kUsage: git prints "error: <message>" and the usage (exit 129); kFatal: "fatal: <message>".
FormatError ParseRefFormat(std::string_view text, RefFormat* format);
// Adds (or finds) the atom `spelling` ("refname", "*objectname:short", ...) in `format`;
// used for --sort keys. Returns its index, or -1 with *error set.
int AddAtom(std::string_view spelling, RefFormat* format, FormatError* error);
// The names of every atom git's format language has, in git's order (for completion).
std::vector<std::string_view> AtomNames();

// The value of each used atom for one ref, as git computes it; `value` orders numeric atoms.
struct AtomValue {
  std::string s;
  uint64_t value = 0;
};

// Renders one ref. Fails (git's fatal message in *error) on misnested %(if)/%(then)/%(else)
// /%(end); those are checked per ref, as git does.
bool RenderRef(const RefFormat& format, const std::vector<AtomValue>& values, std::string* out,
               std::string* error);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_REF_FORMAT_H_
