// MD's atoms are declared once (solvers/md/atom_record.hpp): the record the
// declaration makes is AtomRecord's layout byte for byte, its written fields
// are where AtomRecord holds velocities and ids, and the store written from
// the declaration writes the same fields. A field added to one and not the
// other fails here.
#include <gtest/gtest.h>

#include <cstddef>

#include <mpsfw/solvers/md/atom_record.hpp>
#include <mpsfw/solvers/md/md_store.hpp>

namespace mpsfw::md {
namespace {

TEST(MdAtomRecord, TheDeclarationMakesAtomRecordsLayout) {
  const RecordLayout layout = atom_layout();
  EXPECT_EQ(layout.bytes, sizeof(AtomRecord));
  EXPECT_EQ(layout.id_offset, static_cast<std::ptrdiff_t>(offsetof(AtomRecord, id)));
  const std::vector<WrittenField>& fields = atom_fields();
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(fields[0].dataset, "velocities");
  EXPECT_EQ(fields[0].offset, offsetof(AtomRecord, v));
  EXPECT_EQ(fields[0].components, 3);
  EXPECT_FALSE(fields[0].integer);
  EXPECT_EQ(fields[1].dataset, "ids");
  EXPECT_EQ(fields[1].offset, offsetof(AtomRecord, id));
  EXPECT_TRUE(fields[1].integer);
}

TEST(MdAtomRecord, TheStoreWritesTheDeclaredFields) {
  const auto store = make_md_store(Backend::Host, lennard_jones(1, 1, 2.5));
  const RecordLayout layout = store->record_layout();
  EXPECT_EQ(layout.bytes, atom_layout().bytes);
  EXPECT_EQ(layout.id_offset, atom_layout().id_offset);
  const std::vector<WrittenField> written = store->written_fields();
  ASSERT_EQ(written.size(), atom_fields().size());
  for (std::size_t f = 0; f < written.size(); ++f) {
    EXPECT_EQ(written[f].dataset, atom_fields()[f].dataset);
    EXPECT_EQ(written[f].offset, atom_fields()[f].offset);
  }
}

}  // namespace
}  // namespace mpsfw::md
