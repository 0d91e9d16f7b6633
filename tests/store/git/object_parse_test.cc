// store/git/objects/object_parse.h: commit and tag headers, people and dates, and the message split
// as git's for-each-ref splits it. The expected splits were checked against git 2.55's
// %(subject), %(contents:body), %(body), %(contents:signature) and %(contents).
#include "store/git/objects/object_parse.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace reftab {
namespace {

const std::string kTree = "0123456789abcdef0123456789abcdef01234567";
const std::string kP1 = "1111111111111111111111111111111111111111";
const std::string kP2 = "2222222222222222222222222222222222222222";

ObjectId IdOf(const std::string& hex) {
  ObjectId id{};
  EXPECT_TRUE(ParseHexId(hex, 20, &id));
  return id;
}

TEST(GitObjectParseTest, PersonWithDateAndZone) {
  GitPerson p = ParsePerson("A U Thor <a@example.com> 1700000000 -0530");
  EXPECT_EQ(p.name, "A U Thor");
  EXPECT_EQ(p.email, "<a@example.com>");
  EXPECT_TRUE(p.has_date);
  EXPECT_EQ(p.timestamp, 1700000000u);
  EXPECT_EQ(p.tz, -530);
  EXPECT_EQ(p.line, "A U Thor <a@example.com> 1700000000 -0530");
  EXPECT_EQ(ParsePerson("X <x> 5 +0100").tz, 100);
}

TEST(GitObjectParseTest, PersonWithoutDateOrEmail) {
  GitPerson p = ParsePerson("Nobody");
  EXPECT_EQ(p.name, "");
  EXPECT_EQ(p.email, "");
  EXPECT_FALSE(p.has_date);
  GitPerson q = ParsePerson("N <e>");  // no "> " after the email: no date
  EXPECT_EQ(q.name, "N");
  EXPECT_EQ(q.email, "<e>");
  EXPECT_FALSE(q.has_date);
  EXPECT_FALSE(ParsePerson("N <e> soon").has_date);
  EXPECT_FALSE(ParsePerson("N <e> 99999999999999999999999 +0000").has_date);  // overflows
}

TEST(GitObjectParseTest, CommitHeaders) {
  std::string c = "tree " + kTree + "\nparent " + kP1 + "\nparent " + kP2 +
                  "\nauthor A <a@x> 1700000000 +0100\ncommitter C <c@x> 1700000001 -0200\n"
                  "encoding ISO-8859-1\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n "
                  "-----END PGP SIGNATURE-----\nmergetag object x\n\nSubject\n\nBody\n";
  GitCommit commit;
  ASSERT_TRUE(ParseCommit(c, 20, &commit).ok());
  EXPECT_EQ(commit.tree, IdOf(kTree));
  ASSERT_EQ(commit.parents.size(), 2u);
  EXPECT_EQ(commit.parents[0], IdOf(kP1));
  EXPECT_EQ(commit.parents[1], IdOf(kP2));
  ASSERT_TRUE(commit.author && commit.committer);
  EXPECT_EQ(commit.author->name, "A");
  EXPECT_EQ(commit.committer->timestamp, 1700000001u);
  EXPECT_EQ(commit.committer->tz, -200);
  EXPECT_EQ(commit.encoding, "ISO-8859-1");
  EXPECT_EQ(commit.gpgsig, "-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----");
  EXPECT_EQ(commit.message, "Subject\n\nBody\n");
}

TEST(GitObjectParseTest, RootCommitWithoutMessage) {
  GitCommit commit;
  ASSERT_TRUE(ParseCommit("tree " + kTree + "\ncommitter C <c@x> 1 +0000\n", 20, &commit).ok());
  EXPECT_TRUE(commit.parents.empty());
  EXPECT_FALSE(commit.author.has_value());
  EXPECT_EQ(commit.message, "");
}

TEST(GitObjectParseTest, MalformedCommits) {
  GitCommit commit;
  EXPECT_EQ(ParseCommit("", 20, &commit).code(), Code::kCorruption);
  EXPECT_EQ(ParseCommit("parent " + kP1 + "\ntree " + kTree + "\n", 20, &commit).code(),
            Code::kCorruption);  // tree must come first
  EXPECT_EQ(ParseCommit("tree " + kTree.substr(1) + "\n", 20, &commit).code(), Code::kCorruption);
  std::string upper = kTree;
  upper[0] = 'A';
  EXPECT_EQ(ParseCommit("tree " + kTree + "\nparent " + upper + "\n", 20, &commit).code(),
            Code::kCorruption);
  EXPECT_EQ(ParseCommit("tree " + kTree + "\n", 32, &commit).code(), Code::kCorruption);
}

TEST(GitObjectParseTest, Tags) {
  GitTag tag;
  ASSERT_TRUE(ParseTag("object " + kP1 +
                           "\ntype commit\ntag v1.0\ntagger T <t@x> 1700000000 "
                           "+0000\n\nRelease\n",
                       20, &tag)
                  .ok());
  EXPECT_EQ(tag.object, IdOf(kP1));
  EXPECT_EQ(tag.type, GitObjectType::kCommit);
  EXPECT_EQ(tag.type_name, "commit");
  EXPECT_EQ(tag.tag, "v1.0");
  ASSERT_TRUE(tag.tagger.has_value());
  EXPECT_EQ(tag.tagger->email, "<t@x>");
  EXPECT_EQ(tag.message, "Release\n");
  // Old tags have no tagger.
  ASSERT_TRUE(ParseTag("object " + kP1 + "\ntype tag\ntag old\n\nx", 20, &tag).ok());
  EXPECT_EQ(tag.type, GitObjectType::kTag);
  EXPECT_FALSE(tag.tagger.has_value());
  EXPECT_EQ(ParseTag("object " + kP1 + "\ntype cheese\n", 20, &tag).code(), Code::kCorruption);
  EXPECT_EQ(ParseTag("type commit\nobject " + kP1 + "\n", 20, &tag).code(), Code::kCorruption);
  EXPECT_EQ(ParseTag("object " + kP1 + "\n", 20, &tag).code(), Code::kCorruption);
}

// A tag's content with `message` after its headers.
std::string TagWith(const std::string& message) {
  return "object " + kP1 + "\ntype commit\ntag t\ntagger T <t@x> 1 +0000\n\n" + message;
}

// A tree entry as git writes it: octal mode, space, name, NUL, the raw id.
std::string TreeEntry(const std::string& mode, const std::string& name, uint8_t fill) {
  return mode + " " + name + std::string(1, '\0') + std::string(20, char(fill));
}

TEST(GitObjectParseTest, TreeEntries) {
  std::vector<GitTreeEntry> entries;
  ASSERT_TRUE(ParseTree("", 20, &entries).ok());
  EXPECT_TRUE(entries.empty());
  std::string tree = TreeEntry("100644", "a", 1) + TreeEntry("40000", "d", 2) +
                     TreeEntry("160000", "sub", 3) + TreeEntry("120000", "link", 4);
  ASSERT_TRUE(ParseTree(tree, 20, &entries).ok());
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].mode, 0100644u);
  EXPECT_EQ(entries[0].id[0], 1);
  EXPECT_EQ(entries[1].mode, 040000u);
  EXPECT_TRUE(IsTreeMode(entries[1].mode));
  EXPECT_FALSE(IsTreeMode(entries[2].mode));
  EXPECT_TRUE(IsGitlinkMode(entries[2].mode));
  EXPECT_FALSE(IsGitlinkMode(entries[3].mode));
  EXPECT_EQ(entries[3].id[19], 4);
  // SHA-256 ids are 32 bytes.
  ASSERT_TRUE(
      ParseTree("100644 f" + std::string(1, '\0') + std::string(32, 'x'), 32, &entries).ok());
  EXPECT_EQ(entries.size(), 1u);
}

TEST(GitObjectParseTest, MalformedTrees) {
  std::vector<GitTreeEntry> entries;
  const std::string good = TreeEntry("100644", "a", 1);
  for (const std::string& bad :
       {good.substr(0, good.size() - 1), TreeEntry("100684", "a", 1), TreeEntry("", "a", 1),
        TreeEntry("100644", "", 1), good + "100644 b", std::string("100644a") + '\0' + "x",
        std::string(30, '1')}) {
    EXPECT_EQ(ParseTree(bad, 20, &entries).code(), Code::kCorruption) << bad;
  }
}

TEST(GitObjectParseTest, SplitSubjectBody) {
  GitMessageParts m = SplitMessage(TagWith("one\ntwo\n\nbody1\nbody2\n"));
  EXPECT_EQ(m.subject, "one two");
  EXPECT_EQ(m.raw_subject, "one\ntwo");
  EXPECT_EQ(m.body, "body1\nbody2\n");
  EXPECT_EQ(m.body_and_sig, "body1\nbody2\n");
  EXPECT_EQ(m.signature, "");
  EXPECT_EQ(m.contents, "one\ntwo\n\nbody1\nbody2\n");
  EXPECT_EQ(m.unsigned_part, m.contents);
}

TEST(GitObjectParseTest, SplitOnlySubjectAndCrLf) {
  GitMessageParts m = SplitMessage(TagWith("only subject"));
  EXPECT_EQ(m.subject, "only subject");
  EXPECT_EQ(m.body, "");
  m = SplitMessage(TagWith("subj\r\nline2\r\n\r\nbody\r\n"));
  EXPECT_EQ(m.subject, "subj line2");
  EXPECT_EQ(m.body, "body\r\n");
  // LF LF wins over an earlier CR LF CR LF, as in git.
  m = SplitMessage(TagWith("x\r\n\r\ny\n\nz\n"));
  EXPECT_EQ(m.subject, "x  y");
  EXPECT_EQ(m.body, "z\n");
}

TEST(GitObjectParseTest, SplitSignatures) {
  const std::string sig = "-----BEGIN PGP SIGNATURE-----\nxx\n-----END PGP SIGNATURE-----\n";
  GitMessageParts m = SplitMessage(TagWith("a\n\n\n\nb\n" + sig));
  EXPECT_EQ(m.subject, "a");
  EXPECT_EQ(m.body, "b\n");
  EXPECT_EQ(m.body_and_sig, "b\n" + sig);
  EXPECT_EQ(m.signature, sig);
  EXPECT_EQ(m.unsigned_part, "a\n\n\n\nb\n");
  // A signature inside the first paragraph ends the subject.
  m = SplitMessage(TagWith("a\nb\n-----BEGIN PGP SIGNATURE-----\nsig\n"));
  EXPECT_EQ(m.subject, "a b");
  EXPECT_EQ(m.body, "");
  EXPECT_EQ(m.signature, "-----BEGIN PGP SIGNATURE-----\nsig\n");
  // Nothing but a signature: no subject.
  m = SplitMessage(TagWith("-----BEGIN SSH SIGNATURE-----\nx\n"));
  EXPECT_EQ(m.subject, "");
  EXPECT_EQ(m.body, "");
  EXPECT_EQ(m.body_and_sig, "-----BEGIN SSH SIGNATURE-----\nx\n");
}

TEST(GitObjectParseTest, SplitStopsAtNulAndSkipsBlankLines) {
  GitMessageParts m = SplitMessage(TagWith(std::string("\n\nsub\n\nbo\0dy\n", 14)));
  EXPECT_EQ(m.subject, "sub");
  EXPECT_EQ(m.body, "bo");
  EXPECT_EQ(SplitMessage("tree x\n").subject, "");  // no message at all
}

}  // namespace
}  // namespace reftab
