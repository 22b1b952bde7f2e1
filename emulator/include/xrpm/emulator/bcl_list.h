// System.Collections.Generic.List`1 as the NETCF base class library lays it out: an object with
// _items (a T[] array), _size, _version and _syncRoot. Adding past the capacity allocates an
// array twice as large and copies (the old one becomes garbage); RemoveAt shifts; TrimExcess
// allocates an exact-size array. The same layout serves every instantiation.
//
// Thread-safety: none; managed code on the thread that holds the world.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "xrpm/emulator/runtime.h"

namespace xrpm::emulator {

struct ListType {
  TypeIndex list = 0;   // System.Collections.Generic.List`1[T]
  TypeIndex items = 0;  // T[]
  bool of_refs = true;  // T is a reference type (else Int32)
};

inline constexpr uint16_t kListItems = 8;
inline constexpr uint16_t kListSize = 12;
inline constexpr uint16_t kListVersion = 16;

// Defines List`1[element_name] over the existing array type `items`.
ListType DefineListType(TypeTable& types, std::string_view element_name, TypeIndex items,
                        bool of_refs);

// new List<T>(capacity)
Addr ListNew(Runtime& rt, const ListType& lt, uint32_t capacity);
uint32_t ListCount(const Runtime& rt, Addr list);
uint32_t ListCapacity(const Runtime& rt, Addr list);
Addr ListGet(const Runtime& rt, Addr list, uint32_t i);
// list.Add(item); *list and *item are GC slots (the array may grow).
void ListAdd(Runtime& rt, const ListType& lt, Addr* list, Addr* item);
void ListAddInt(Runtime& rt, const ListType& lt, Addr* list, int32_t value);
void ListRemoveAt(Runtime& rt, Addr list, uint32_t i);
void ListClear(Runtime& rt, Addr list);
// list.TrimExcess(): an exact-size array when less than 90% is used.
void ListTrimExcess(Runtime& rt, const ListType& lt, Addr* list);

}  // namespace xrpm::emulator
