// CounterHistory (client/counter_history.h): finding a counter of the catalog
// (protocol/netcf_counters.h) among the ones a device describes, by category and name.
#include "xrpm/client/counter_history.h"

#include <gtest/gtest.h>

namespace xrpm::client {
namespace {

TEST(CounterHistoryTest, FindsCatalogCounterByCategoryAndName) {
  CounterHistory h;
  EXPECT_EQ(h.Find(protocol::NetcfCounter::kGcHeap), -1) << "no descriptors yet";
  // A counter of another category under the same name comes first: it is not the catalog's.
  h.SetDescriptors({{"Custom", "GC Heap", "bytes"},
                    {"Garbage Collector", "Managed Bytes In Use After GC", "bytes"},
                    {"Memory", "GC Heap", "bytes"}},
                   100);
  EXPECT_EQ(h.Find(protocol::NetcfCounter::kGcHeap), 2);
  EXPECT_EQ(h.Find(protocol::NetcfCounter::kManagedBytesInUseAfterGc), 1);
  EXPECT_EQ(h.Find(protocol::NetcfCounter::kMethodsJitted), -1) << "not reported: not found";
  EXPECT_EQ(h.Find("GC Heap"), 0) << "by display name alone: the first of that name";
}

}  // namespace
}  // namespace xrpm::client
