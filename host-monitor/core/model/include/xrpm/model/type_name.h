// Canonical type names: one name per type, whatever runtime or file it came from.
//
// Each source names a type its own way: the NETCF .gclog (reflection form, assembly-qualified
// arguments) `System.Collections.Generic.List`1[[Bubbles.Bubble, Bubbles, Version=1.0.0.0,
// Culture=neutral, PublicKeyToken=null]]`, the emulator `System.Collections.Generic.List`1[
// Bubbles.Bubble]`, Mono (mono_type_get_name) `System.Collections.Generic.List<Bubbles.Bubble>`.
// A snapshot keeps the name its source wrote (TypeInfo::written_name: files round-trip byte for
// byte) and computes this canonical one once, when the type is added (TypeInfo::name); display,
// lookup, matching across snapshots and every name-keyed analysis rule use the canonical name.
//
// The canonical form is C# with full namespaces:
//   System.Collections.Generic.Dictionary<System.String, System.Int32>   (", " between arguments)
//   Outer<A>+Inner      nesting with '+' as reflection names it; each argument on the segment
//                       whose arity (`n) declares it, all on the last one when none says
//   T[]  T[,]  T[*]  T*  T&   array, pointer and by-ref suffixes as written
//   System.Collections.Generic.List<>, Dictionary<,>   an unbound generic (an arity, no arguments)
//   int, string, ... in argument position become System.Int32, System.String, ...
// Names that are not .NET type names (Java's from IBM classic heapdumps, `[JS Roots]` from a
// .gcdump) come back unchanged, and so does any name that does not parse.
//
// Grammar read (spaces around arguments are skipped):
//   name     := segment ('+' segment)* rargs? suffix*
//   segment  := ident ('`' digits)? cargs?
//   ident    := (char | '\' char | '<' ... '>' at the ident's start, as in <>c__DisplayClass4)+
//               where char is anything but [ ] , < > + ` * & \ ; '.' (namespaces) is a char
//   cargs    := '<' name (',' name)* '>' | '<' ','* '>'          (C#, Mono; '<>' unbound)
//   rargs    := '[' rarg (',' rarg)* ']'                          (reflection)
//   rarg     := '[' name (',' assembly)? ']' | name
//   suffix   := '[' ','* ']' | '[*]' | '*' | '&'
// A '[' right after the segments opens rargs unless what follows is ']', ',' or '*]' (a suffix).
//
// Bad input never fails: unbalanced brackets, arities that do not add up to the arguments,
// text after the name or generic arguments nested more than 32 deep leave the name unchanged.
//
// Complexity: O(n * d) time for a name of n characters whose arguments nest d deep (d <= 32),
// O(n) memory. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace xrpm {

// The canonical name of a type its source named `written` (see above); `written` itself when
// it is already canonical or is not a .NET type name.
std::string CanonicalTypeName(std::string_view written);

// The unbound generic form of a name: its top-level argument lists emptied to their arity
// (System.Collections.Generic.List<System.String> -> System.Collections.Generic.List<>,
// Dictionary<System.String, Foo>+Entry[] -> Dictionary<,>+Entry[]). Takes any form, as
// CanonicalTypeName does; a non-generic name comes back canonical and otherwise unchanged. For
// rules keyed on a generic type whatever its arguments (the BCL collections).
std::string GenericDefinitionName(std::string_view written);

}  // namespace xrpm
