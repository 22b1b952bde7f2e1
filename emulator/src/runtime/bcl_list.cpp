#include "xrpm/emulator/bcl_list.h"

#include <cstring>

#include "xrpm/emulator/method_frame_scope.h"

namespace xrpm::emulator {

ListType DefineListType(TypeTable& types, std::string_view element_name, TypeIndex items,
                        bool of_refs) {
  ListType lt;
  lt.items = items;
  lt.of_refs = of_refs;
  lt.list = types.DefineClass(
      "System.Collections.Generic.List`1[" + std::string(element_name) + "]", "mscorlib", 0,
      {{"_items", FieldType::kRef},
       {"_size", FieldType::kInt32},
       {"_version", FieldType::kInt32},
       {"_syncRoot", FieldType::kRef}});
  return lt;
}

Addr ListNew(Runtime& rt, const ListType& lt, uint32_t capacity) {
  MethodFrameScope f(rt, rt.current_thread(), "System.Collections.Generic.List`1..ctor", 1);
  f.set(0, rt.New(lt.list));
  Addr items = rt.NewArray(lt.items, capacity);
  rt.SetRef(f.get(0), kListItems, items);
  return f.get(0);
}

uint32_t ListCount(const Runtime& rt, Addr list) {
  return static_cast<uint32_t>(rt.I32(list, kListSize));
}

uint32_t ListCapacity(const Runtime& rt, Addr list) {
  return rt.Length(rt.Ref(list, kListItems));
}

Addr ListGet(const Runtime& rt, Addr list, uint32_t i) {
  return rt.Elem(rt.Ref(list, kListItems), i);
}

namespace {
// Makes room for one more element (EnsureCapacity: doubles, at least 4).
void Grow(Runtime& rt, const ListType& lt, Addr* list) {
  uint32_t size = ListCount(rt, *list);
  if (size < ListCapacity(rt, *list)) return;
  uint32_t cap = size == 0 ? 4 : size * 2;
  Addr bigger = rt.NewArray(lt.items, cap);  // may move *list (a GC slot)
  std::memcpy(rt.ArrayData(bigger), rt.ArrayData(rt.Ref(*list, kListItems)), size * 4);
  rt.SetRef(*list, kListItems, bigger);
}

void Bump(Runtime& rt, Addr list, int32_t size_delta) {
  rt.SetI32(list, kListSize, rt.I32(list, kListSize) + size_delta);
  rt.SetI32(list, kListVersion, rt.I32(list, kListVersion) + 1);
}
}  // namespace

void ListAdd(Runtime& rt, const ListType& lt, Addr* list, Addr* item) {
  Grow(rt, lt, list);
  rt.SetElem(rt.Ref(*list, kListItems), ListCount(rt, *list), *item);
  Bump(rt, *list, 1);
}

void ListAddInt(Runtime& rt, const ListType& lt, Addr* list, int32_t value) {
  Grow(rt, lt, list);
  std::memcpy(rt.ArrayData(rt.Ref(*list, kListItems)) + 4 * ListCount(rt, *list), &value, 4);
  Bump(rt, *list, 1);
}

void ListRemoveAt(Runtime& rt, Addr list, uint32_t i) {
  uint32_t size = ListCount(rt, list);
  uint8_t* data = rt.ArrayData(rt.Ref(list, kListItems));
  std::memmove(data + 4 * i, data + 4 * (i + 1), 4 * (size - i - 1));
  std::memset(data + 4 * (size - 1), 0, 4);
  Bump(rt, list, -1);
}

void ListClear(Runtime& rt, Addr list) {
  uint32_t size = ListCount(rt, list);
  std::memset(rt.ArrayData(rt.Ref(list, kListItems)), 0, 4 * size);
  rt.SetI32(list, kListSize, 0);
  rt.SetI32(list, kListVersion, rt.I32(list, kListVersion) + 1);
}

void ListTrimExcess(Runtime& rt, const ListType& lt, Addr* list) {
  uint32_t size = ListCount(rt, *list);
  if (size >= ListCapacity(rt, *list) * 9 / 10) return;
  Addr exact = rt.NewArray(lt.items, size);
  std::memcpy(rt.ArrayData(exact), rt.ArrayData(rt.Ref(*list, kListItems)), size * 4);
  rt.SetRef(*list, kListItems, exact);
}

}  // namespace xrpm::emulator
