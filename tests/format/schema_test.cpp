// The record layouts the reader and writer go through (format/src/header_schema.h and
// seek_table.h) against the tables of format/FORMAT.md, the normative spec: every field's name,
// offset, size and type, in order, and each record's size as the spec's overview gives it.
// (That the fields tile each record is a static_assert beside the layouts.)
#include <gtest/gtest.h>

#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "header_schema.h"
#include "seek_table.h"

namespace sowdb::table_internal {
namespace {

// One row of a table of fields in FORMAT.md: offset (as written), size, type, field.
struct SpecRow {
  std::string offset;
  std::size_t size = 0;
  std::string type;
  std::string name;
};

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(' ');
  const auto last = s.find_last_not_of(' ');
  return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line.substr(1));
  for (std::string cell; std::getline(in, cell, '|');)
    out.push_back(trim(cell));
  return out;
}

std::vector<std::string> spec_lines() {
  std::ifstream in(SOWDB_FORMAT_MD);
  EXPECT_TRUE(in) << "cannot read " << SOWDB_FORMAT_MD;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// The rows of the first table after the section title `title` (underlined with dashes).
std::vector<std::vector<std::string>> section_table(const std::string& title) {
  const std::vector<std::string> lines = spec_lines();
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (lines[i] != title || lines[i + 1].find_first_not_of('-') != std::string::npos ||
        lines[i + 1].empty()) {
      continue;
    }
    std::size_t j = i + 2;
    while (j < lines.size() && lines[j].rfind('|', 0) != 0)
      ++j;
    for (j += 2; j < lines.size() && lines[j].rfind('|', 0) == 0; ++j)  // past the head row
      rows.push_back(cells(lines[j]));
    break;
  }
  EXPECT_FALSE(rows.empty()) << "no table under \"" << title << "\" in FORMAT.md";
  return rows;
}

std::vector<SpecRow> field_rows(const std::string& title) {
  std::vector<SpecRow> out;
  for (const auto& row : section_table(title)) {
    EXPECT_GE(row.size(), 4u);
    if (row.size() < 4)
      continue;
    out.push_back({row[0], std::stoul(row[1]), row[2], row[3]});
  }
  return out;
}

// The size of `section` in FORMAT.md's overview of a file: a number, or `k * block_count` for a
// table of k-byte entries (then k).
std::size_t overview_size(const std::string& section) {
  for (const auto& row : section_table("Overview")) {
    if (row.size() >= 2 && row[0] == section) {
      const std::string size = row[1].front() == '`' ? row[1].substr(1) : row[1];
      if (row[1].front() == '`') {
        EXPECT_EQ(size.substr(size.find(' ')), " * block_count`") << row[1];
      }
      return std::stoul(size);
    }
  }
  ADD_FAILURE() << "no \"" << section << "\" in FORMAT.md's overview";
  return 0;
}

template <typename Id, std::size_t N>
void expect_layout_is_spec(const Layout<Id, N>& layout,
                           const std::vector<SpecRow>& spec,
                           std::size_t spec_size,
                           const std::string& offset_prefix) {
  EXPECT_EQ(layout.size, spec_size);
  ASSERT_EQ(N, spec.size());
  for (std::size_t i = 0; i < N; ++i) {
    const Field<Id>& f = layout.fields[i];
    const SpecRow& s = spec[i];
    SCOPED_TRACE(s.name);
    EXPECT_EQ(std::string(f.name), s.name);
    ASSERT_EQ(s.offset.rfind(offset_prefix, 0), 0u) << s.offset;
    const std::size_t offset = std::stoul(s.offset.substr(offset_prefix.size()));
    // A footer's offsets count back from the end of the file.
    EXPECT_EQ(f.offset, offset_prefix.empty() ? offset : spec_size - offset);
    EXPECT_EQ(f.size, s.size);
    if (s.type == "bytes") {
      EXPECT_EQ(f.type, FieldType::kBytes);
    } else {
      EXPECT_EQ(f.type, FieldType::kUnsigned);
      ASSERT_EQ(s.type.front(), 'u') << s.type;
      EXPECT_EQ(std::stoul(s.type.substr(1)), 8 * f.size) << s.type;
    }
    EXPECT_GE(f.check, 1);
    EXPECT_LE(f.check, 21);
  }
}

TEST(Schema, HeaderIsFormatMdHeader) {
  expect_layout_is_spec(kHeaderLayout, field_rows("Header"), overview_size("Header"), "");
}

TEST(Schema, SeekEntryIsFormatMdSeekEntry) {
  expect_layout_is_spec(
      kSeekEntryLayout, field_rows("Seek table"), overview_size("Seek table"), "");
}

TEST(Schema, FooterIsFormatMdFooter) {
  expect_layout_is_spec(
      kFooterLayout, field_rows("Footer"), overview_size("Footer"), "file_size - ");
}

}  // namespace
}  // namespace sowdb::table_internal
