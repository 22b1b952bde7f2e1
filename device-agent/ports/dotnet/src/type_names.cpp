// TypeNames: class and method names from the profiling API and module metadata.
#include "type_names.h"

#include <cstdio>
#include <vector>

namespace xrpm {
namespace dotnet {
namespace {

constexpr int kMaxDepth = 32;  // generic arguments nested deeper are not named

std::string Hex(const char* what, uintptr_t v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "<%s 0x%llx>", what, static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::string WithoutArity(std::string name) {
  const size_t tick = name.find('`');
  if (tick != std::string::npos) name.resize(tick);
  return name;
}

const char* PrimitiveName(cor::CorElementType t) {
  static const struct {
    cor::CorElementType code;
    const char* name;
  } kPrimitives[] = {{0x02, "System.Boolean"}, {0x03, "System.Char"},   {0x04, "System.SByte"},
                     {0x05, "System.Byte"},    {0x06, "System.Int16"},  {0x07, "System.UInt16"},
                     {0x08, "System.Int32"},   {0x09, "System.UInt32"}, {0x0a, "System.Int64"},
                     {0x0b, "System.UInt64"},  {0x0c, "System.Single"}, {0x0d, "System.Double"},
                     {0x0e, "System.String"},  {0x18, "System.IntPtr"}, {0x19, "System.UIntPtr"},
                     {0x1c, "System.Object"}};
  for (const auto& p : kPrimitives)
    if (p.code == t) return p.name;
  return nullptr;
}

std::string Utf8(const cor::WCHAR* text, size_t length) {
  std::string out;
  out.reserve(length);
  for (size_t i = 0; i < length; ++i) {
    uint32_t c = text[i];
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < length && text[i + 1] >= 0xDC00 &&
        text[i + 1] <= 0xDFFF) {
      c = 0x10000 + ((c - 0xD800) << 10) + (text[i + 1] - 0xDC00);
      ++i;
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      c = 0xFFFD;
    }
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

std::string TypeNames::TypeDefName(cor::IMetaDataImport* md, cor::mdToken type_def) {
  std::string name;
  for (int depth = 0; depth < kMaxDepth && type_def != 0; ++depth) {
    cor::WCHAR buf[kMetadataNameCapacity];
    cor::ULONG len = 0;
    cor::DWORD flags = 0;
    cor::mdToken extends = 0;
    if (cor::Failed(
            md->GetTypeDefProps(type_def, buf, kMetadataNameCapacity, &len, &flags, &extends)))
      return name.empty() ? Hex("typedef", type_def) : name;
    const size_t n = len > 0 && len <= kMetadataNameCapacity ? len - 1 : 0;  // len counts the NUL
    std::string part = WithoutArity(Utf8(buf, n));
    name = name.empty() ? part : part + "+" + name;
    cor::mdToken enclosing = 0;
    if (md->GetNestedClassProps(type_def, &enclosing) != cor::S_OK) break;
    type_def = enclosing;
  }
  return name;
}

const std::string& TypeNames::ClassName(cor::ClassID klass) {
  auto it = classes_.find(klass);
  if (it != classes_.end()) return it->second;
  std::string name = Compute(klass, 0);
  return classes_.emplace(klass, std::move(name)).first->second;
}

std::string TypeNames::Compute(cor::ClassID klass, int depth) {
  if (depth > kMaxDepth) return "...";
  if (depth > 0) {  // arguments: from the cache when known
    auto it = classes_.find(klass);
    if (it != classes_.end()) return it->second;
  }
  cor::CorElementType element_type = 0;
  cor::ClassID element = 0;
  cor::ULONG rank = 0;
  if (info_->IsArrayClass(klass, &element_type, &element, &rank) == cor::S_OK) {
    const char* primitive = PrimitiveName(element_type);
    std::string name = element != 0 ? Compute(element, depth + 1)
                                    : (primitive ? primitive : Hex("element", element_type));
    name += '[';
    for (cor::ULONG i = 1; i < rank; ++i) name += ',';
    return name + ']';
  }
  cor::ModuleID module = 0;
  cor::mdToken type_def = 0;
  cor::ClassID parent = 0;
  cor::ULONG arg_count = 0;
  if (cor::Failed(
          info_->GetClassIDInfo2(klass, &module, &type_def, &parent, 0, &arg_count, nullptr)))
    return Hex("class", klass);
  std::vector<cor::ClassID> args(arg_count);
  if (arg_count > 0 && cor::Failed(info_->GetClassIDInfo2(klass, &module, &type_def, &parent,
                                                          arg_count, &arg_count, args.data())))
    args.clear();
  cor::IMetaDataImport* md = metadata_.Get(module);
  if (!md) return Hex("class", klass);
  std::string name = TypeDefName(md, type_def);
  if (!args.empty()) {
    name += '<';
    for (size_t i = 0; i < args.size() && i < arg_count; ++i) {
      if (i > 0) name += ", ";
      name += Compute(args[i], depth + 1);
    }
    name += '>';
  }
  return name;
}

std::string TypeNames::MethodName(cor::FunctionID function) {
  cor::ClassID klass = 0;
  cor::ModuleID module = 0;
  cor::mdToken token = 0;
  if (function == 0 || cor::Failed(info_->GetFunctionInfo(function, &klass, &module, &token)))
    return Hex("method", function);
  cor::IMetaDataImport* md = metadata_.Get(module);
  if (!md) return Hex("method", function);
  cor::WCHAR buf[kMetadataNameCapacity];
  cor::ULONG len = 0;
  cor::mdToken type_def = 0;
  cor::DWORD attributes = 0, impl_flags = 0;
  const uint8_t* signature = nullptr;
  cor::ULONG signature_bytes = 0, rva = 0;
  if (cor::Failed(md->GetMethodProps(token, &type_def, buf, kMetadataNameCapacity, &len,
                                     &attributes, &signature, &signature_bytes, &rva, &impl_flags)))
    return Hex("method", function);
  const size_t n = len > 0 && len <= kMetadataNameCapacity ? len - 1 : 0;
  const std::string method = Utf8(buf, n);
  return type_def != 0 ? TypeDefName(md, type_def) + "." + method : method;
}

}  // namespace dotnet
}  // namespace xrpm
