// Point lookups on every fixture table agree with a full scan of the same table: ReadRef
// (index descent + in-block seek) finds every ref, and RefsFor finds every ref by its object
// id, through the obj index where the table has one and by scanning otherwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "tests/testutil/fixtures.h"
#include "tests/testutil/golden_util.h"
#include "tests/testutil/random_refs.h"

namespace reftab::golden {
namespace {

class FixtureLookupTest : public testing::TestWithParam<FixtureTable> {
 protected:
  void SetUp() override {
    if (GetParam().path.empty()) GTEST_SKIP() << "no fixtures in " << testutil::FixturesDir();
    table_ = OpenTableOrFail(GetParam().path);
    ASSERT_NE(table_, nullptr);
    refs_ = ScanRefs(*table_);
  }

  // Names of the scanned refs that hold `id` as value or peeled value, sorted.
  std::map<ObjectId, std::vector<std::string>> RefsById() const {
    std::map<ObjectId, std::vector<std::string>> by_id;
    for (const RefRecord& r : refs_) {
      if (r.value_type == RefValueType::kVal1 || r.value_type == RefValueType::kVal2) {
        by_id[r.value].push_back(r.refname);
      }
      if (r.value_type == RefValueType::kVal2 && r.peeled != r.value) {
        by_id[r.peeled].push_back(r.refname);
      }
    }
    for (auto& [id, names] : by_id) std::sort(names.begin(), names.end());
    return by_id;
  }

  std::unique_ptr<TableReader> table_;
  std::vector<RefRecord> refs_;
};

TEST_P(FixtureLookupTest, ReadRefFindsEveryScannedRef) {
  size_t hs = table_->hash_size();
  RefRecord got;
  for (const RefRecord& want : refs_) {
    bool found = false;
    ASSERT_TRUE(table_->ReadRef(want.refname, &got, &found).ok()) << want.refname;
    ASSERT_TRUE(found) << want.refname;
    EXPECT_TRUE(testutil::SameRef(got, want, hs)) << want.refname;
  }
  for (size_t i = 0; i < refs_.size(); i += 7) {
    std::string absent = refs_[i].refname + '\0';
    bool found = true;
    ASSERT_TRUE(table_->ReadRef(absent, &got, &found).ok());
    EXPECT_FALSE(found) << refs_[i].refname;
  }
}

TEST_P(FixtureLookupTest, RefsForFindsEveryRefByItsId) {
  const std::string& name = GetParam().name;
  bool has_obj_index = table_->footer().obj_position != 0;
  // The obj index path must be exercised by the tables git wrote with one.
  if (name.find("medium_default") != std::string::npos ||
      name.find("git_multilevel") != std::string::npos) {
    EXPECT_TRUE(has_obj_index);
  }
  if (name.find("medium_noobjidx") != std::string::npos) {
    EXPECT_FALSE(has_obj_index);
  }
  auto by_id = RefsById();
  // A scan per id is quadratic; without an obj index a sample of ids is enough.
  size_t wanted = has_obj_index ? 3000 : 40;
  size_t step = std::max<size_t>(1, by_id.size() / wanted);
  size_t i = 0;
  for (const auto& [id, names] : by_id) {
    if (i++ % step != 0) continue;
    std::vector<RefRecord> got;
    ASSERT_TRUE(table_->RefsFor(id, &got).ok()) << HexId(id, table_->hash_size());
    std::vector<std::string> got_names;
    for (const RefRecord& r : got) got_names.push_back(r.refname);
    std::sort(got_names.begin(), got_names.end());
    EXPECT_EQ(got_names, names) << HexId(id, table_->hash_size());
  }
  ObjectId unknown{};
  unknown.fill(0xee);
  std::vector<RefRecord> none;
  ASSERT_TRUE(table_->RefsFor(unknown, &none).ok());
  EXPECT_TRUE(none.empty());
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureLookupTest,
                         testing::ValuesIn(FixtureTablesOrPlaceholder()),
                         [](const testing::TestParamInfo<FixtureTable>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace reftab::golden
