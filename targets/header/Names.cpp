//===- Names.cpp - Identifiers, dtypes and expressions for headers --------===//
//
// Names from a .tile file become C++ names in the generated header, and
// expressions written by the compiler (grids, checks, TMA extents) are
// pasted into it. Both are checked here so that no .tile spelling can
// produce a header that fails to compile or means something else: names are
// sanitised (keywords, reserved spellings, clashes with generated names) and
// expressions are limited to integer arithmetic over the function's symbols.
//
//===----------------------------------------------------------------------===//

#include "Support.h"

#include <algorithm>
#include <cctype>

namespace tilec::header {
namespace detail {

namespace {

// clang-format off
const DTypeInfo dtypeTable[] = {
    // name, bytes, host type, device type, conversion, TMA type
    {"bool", 1, "bool", "bool", "", "UINT8"},
    {"int8", 1, "std::int8_t", "std::int8_t", "", "UINT8"},
    {"int16", 2, "std::int16_t", "std::int16_t", "", "UINT16"},
    {"int32", 4, "std::int32_t", "std::int32_t", "", "INT32"},
    {"int64", 8, "std::int64_t", "std::int64_t", "", "INT64"},
    {"uint8", 1, "std::uint8_t", "std::uint8_t", "", "UINT8"},
    {"uint16", 2, "std::uint16_t", "std::uint16_t", "", "UINT16"},
    {"uint32", 4, "std::uint32_t", "std::uint32_t", "", "UINT32"},
    {"uint64", 8, "std::uint64_t", "std::uint64_t", "", "UINT64"},
    // A device address: the element type of a pointer-table tensor
    // (`T.Tensor([n], T.ptr)`), never a scalar parameter.
    {"ptr", 8, "void *", "void *", "", "UINT64"},
    // 8-bit floats have no host type: the caller passes the bits.
    {"float8_e4m3", 1, "std::uint8_t", "std::uint8_t", "", "UINT8"},
    {"float8_e5m2", 1, "std::uint8_t", "std::uint8_t", "", "UINT8"},
    // 16-bit floats are taken as float and rounded to nearest even on the
    // host, which is what a caller coming from PyTorch/TileLang expects.
    {"float16", 2, "float", "std::uint16_t", "halfBits", "FLOAT16"},
    {"bfloat16", 2, "float", "std::uint16_t", "bfloat16Bits", "BFLOAT16"},
    {"float32", 4, "float", "float", "", "FLOAT32"},
    {"float64", 8, "double", "double", "", "FLOAT64"},
};

const std::pair<std::string_view, std::string_view> dtypeAliases[] = {
    {"boolean", "bool"},       {"int", "int32"},  {"handle", "ptr"},
    {"half", "float16"},       {"fp16", "float16"},
    {"bf16", "bfloat16"},      {"float", "float32"},
    {"fp32", "float32"},       {"double", "float64"},
    {"fp64", "float64"},       {"float8_e4m3fn", "float8_e4m3"},
    {"e4m3_float8", "float8_e4m3"}, {"e5m2_float8", "float8_e5m2"},
};

// C++20 keywords and alternative tokens, plus macros every C++ program may
// see: a parameter with one of these names would not compile.
const std::string_view reservedWords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "assert", "auto", "bitand",
    "bitor", "bool", "break", "case", "catch", "char", "char16_t", "char32_t",
    "char8_t", "class", "co_await", "co_return", "co_yield", "compl",
    "concept", "const", "const_cast", "consteval", "constexpr", "constinit",
    "continue", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "EOF", "errno", "explicit", "export",
    "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int",
    "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "NULL", "nullptr", "offsetof", "operator", "or", "or_eq", "private",
    "protected", "public", "register", "reinterpret_cast", "requires",
    "return", "short", "signed", "sizeof", "static", "static_assert",
    "static_cast", "stderr", "stdin", "stdout", "struct", "switch",
    "template", "this", "thread_local", "throw", "true", "try", "typedef",
    "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
    "volatile", "wchar_t", "while", "xor", "xor_eq",
};
// clang-format on

// Names the generated namespace itself declares next to the launch
// functions.
const std::string_view headerNames[] = {"detail", "kImageSize", "kTarget",
                                        "load",   "loadLog",    "unload"};

// Whether `name` could be, or could hide, a name of cuda.h, the HIP headers
// or <cstdint> that the generated code uses unqualified (cuLaunchKernel,
// CUDA_SUCCESS, hipSuccess, INT32_MAX...).
bool clashesWithRuntime(std::string_view name) {
  auto startsWith = [&](std::string_view prefix) {
    return name.substr(0, prefix.size()) == prefix;
  };
  auto upperAt = [&](size_t i) {
    return i < name.size() && std::isupper(static_cast<unsigned char>(name[i]));
  };
  return startsWith("CU") || startsWith("HIP") ||
         (startsWith("cu") && upperAt(2)) ||
         (startsWith("hip") && upperAt(3)) || startsWith("INT") ||
         startsWith("UINT");
}

bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

template <typename Range>
bool contains(const Range &range, std::string_view name) {
  return std::find(std::begin(range), std::end(range), name) != std::end(range);
}

} // namespace

const DTypeInfo *lookupDType(std::string_view name) {
  for (const auto &[alias, canonical] : dtypeAliases)
    if (alias == name)
      name = canonical;
  for (const DTypeInfo &info : dtypeTable)
    if (info.name == name)
      return &info;
  return nullptr;
}

bool isIdentifier(std::string_view text) {
  return !text.empty() && isIdentStart(text[0]) &&
         std::all_of(text.begin(), text.end(), isIdentChar);
}

bool tokenizeExpr(std::string_view expr, std::vector<ExprToken> &tokens,
                  std::string &error) {
  // Integer arithmetic, comparisons, logic and ?: only: no quotes, braces,
  // semicolons, '#', '\\', commas (they would split an initializer list),
  // member access, and nothing that assigns (`=`, `+=`, `++`...), since
  // symbols are parameters of the launch function. Identifiers are checked
  // by the caller.
  static const std::string_view puncts = "+-*/%()<>=!&|?:^~";
  static const std::string_view twoCharOps[] = {
      "==", "!=", "<=", ">=", "&&", "||", "<<", ">>"};
  for (size_t i = 0; i < expr.size();) {
    char c = expr[i];
    if (c == ' ' || c == '\t') {
      ++i;
    } else if (isIdentStart(c)) {
      size_t j = i;
      while (j < expr.size() && isIdentChar(expr[j]))
        ++j;
      tokens.push_back(
          {ExprToken::Identifier, std::string(expr.substr(i, j - i))});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      // Digits with suffixes or hex digits ("0x7f", "128u", "1LL").
      size_t j = i;
      while (j < expr.size() && isIdentChar(expr[j]))
        ++j;
      tokens.push_back({ExprToken::Number, std::string(expr.substr(i, j - i))});
      i = j;
    } else if (puncts.find(c) != std::string_view::npos) {
      std::string_view two = expr.substr(i, 2);
      if (contains(twoCharOps, two)) {
        tokens.push_back({ExprToken::Punct, std::string(two)});
        i += 2;
        continue;
      }
      // A lone '=' assigns; '++', '--' and 'x=' forms modify.
      if (c == '=' || two == "++" || two == "--" ||
          (two.size() == 2 && two[1] == '=')) {
        error = "assignment in `" + std::string(expr) + "`";
        return false;
      }
      tokens.push_back({ExprToken::Punct, std::string(1, c)});
      ++i;
    } else {
      error = "unexpected character '" + std::string(1, c) + "' in `" +
              std::string(expr) + "`";
      return false;
    }
  }
  return true;
}

std::string checkExpr(std::string_view expr,
                      const std::set<std::string> &symbols) {
  std::vector<ExprToken> tokens;
  std::string error;
  if (!tokenizeExpr(expr, tokens, error))
    return error;
  if (tokens.empty())
    return "empty expression";
  int depth = 0;
  for (const ExprToken &token : tokens) {
    if (token.kind == ExprToken::Identifier && !symbols.count(token.text))
      return "`" + token.text + "` in `" + std::string(expr) +
             "` is not a symbol of the function";
    if (token.text == "(")
      ++depth;
    if (token.text == ")" && --depth < 0)
      break;
  }
  if (depth != 0)
    return "unbalanced parentheses in `" + std::string(expr) + "`";
  return "";
}

std::string rewriteExpr(std::string_view expr,
                        const std::map<std::string, std::string> &names) {
  // Renames identifiers in place and keeps everything else (spacing too),
  // so the header shows the expression as the compiler wrote it.
  std::string out;
  for (size_t i = 0; i < expr.size();) {
    if (isIdentStart(expr[i]) ||
        std::isdigit(static_cast<unsigned char>(expr[i]))) {
      size_t j = i;
      while (j < expr.size() && isIdentChar(expr[j]))
        ++j;
      std::string token(expr.substr(i, j - i));
      auto it = names.find(token);
      out += it != names.end() && isIdentStart(token[0]) ? it->second : token;
      i = j;
    } else {
      out += expr[i++];
    }
  }
  return out;
}

std::string sanitizeIdentifier(std::string_view name) {
  std::string out;
  for (char c : name) {
    char d = isIdentChar(c) ? c : '_';
    // "__" anywhere is reserved in C++: collapse runs of underscores.
    if (d == '_' && !out.empty() && out.back() == '_')
      continue;
    out += d;
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out.insert(out.begin(), '_');
  // "_X" is reserved everywhere.
  if (out.size() > 1 && out[0] == '_' &&
      std::isupper(static_cast<unsigned char>(out[1])))
    out.insert(out.begin(), 'u');
  if (contains(reservedWords, out))
    out += '_';
  return out;
}

} // namespace detail

std::string sanitizeIdentifier(std::string_view name) {
  return detail::sanitizeIdentifier(name);
}

std::string canonicalDType(std::string_view dtype) {
  const detail::DTypeInfo *info = detail::lookupDType(dtype);
  return info ? std::string(info->name) : std::string();
}

std::string defaultNamespace(std::string_view sourceFile) {
  std::string_view stem = sourceFile;
  size_t slash = stem.find_last_of("/\\");
  if (slash != std::string_view::npos)
    stem = stem.substr(slash + 1);
  size_t dot = stem.find('.');
  if (dot != std::string_view::npos && dot > 0)
    stem = stem.substr(0, dot);
  if (stem.empty())
    stem = "kernels";
  return "tilec_kernels::" + detail::sanitizeIdentifier(stem);
}

namespace detail {

bool isIntegerDType(std::string_view dtype) {
  static const std::string_view integers[] = {
      "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"};
  return contains(integers, canonicalDType(dtype));
}

ParamNames nameParams(const Function &function) {
  ParamNames names;
  std::set<std::string> used = {"stream"};
  for (const Param &param : function.params) {
    std::string name = sanitizeIdentifier(param.name);
    // `tilec_` is the prefix of the launch function's own locals.
    if (name.rfind("tilec_", 0) == 0 || clashesWithRuntime(name))
      name = "u_" + name;
    if (name == "stream")
      name += '_';
    std::string unique = name;
    for (unsigned n = 2; used.count(unique); ++n)
      unique = name + "_" + std::to_string(n);
    used.insert(unique);
    names.cNames.push_back(unique);
    if (param.kind == Param::Kind::Symbol) {
      names.symbols.emplace(param.name, unique);
      names.symbolSet.insert(param.name);
    } else if (param.kind == Param::Kind::Scalar &&
               isIntegerDType(param.dtype)) {
      // Grid expressions may name integer scalars too (checkFunction);
      // they are computed in 64 bits, as over the symbols.
      names.symbols.emplace(param.name,
                            "static_cast<std::int64_t>(" + unique + ")");
    }
  }
  return names;
}

std::string functionName(const Function &function) {
  std::string name = sanitizeIdentifier(function.name);
  if (clashesWithRuntime(name))
    name = "u_" + name;
  if (contains(headerNames, name))
    name += '_';
  return name;
}

std::vector<std::string> namespaceParts(const Unit &unit) {
  std::string full = unit.nameSpace.empty() ? defaultNamespace(unit.sourceFile)
                                            : unit.nameSpace;
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t sep = full.find("::", start);
    parts.push_back(sanitizeIdentifier(full.substr(start, sep - start)));
    if (sep == std::string::npos)
      break;
    start = sep + 2;
  }
  return parts;
}

unsigned EntryTable::indexOf(const std::string &entry) const {
  return static_cast<unsigned>(
      std::find(entries.begin(), entries.end(), entry) - entries.begin());
}

EntryTable collectEntries(const Unit &unit) {
  EntryTable table;
  for (const Function &function : unit.functions) {
    for (const KernelLaunch &kernel : function.kernels) {
      unsigned i = table.indexOf(kernel.entry);
      if (i == table.entries.size()) {
        table.entries.push_back(kernel.entry);
        table.maxDynamicShared.push_back(0);
        table.maxClusterSize.push_back(1);
      }
      table.maxDynamicShared[i] =
          std::max(table.maxDynamicShared[i], kernel.dynamicSharedBytes);
      table.maxClusterSize[i] =
          std::max(table.maxClusterSize[i],
                   kernel.cluster[0] * kernel.cluster[1] * kernel.cluster[2]);
    }
  }
  return table;
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7f || c == '?') {
      // Octal escapes end after three digits, unlike \x, and '?' avoids
      // trigraph-looking text for old compilers.
      out += '\\';
      out += static_cast<char>('0' + (u >> 6));
      out += static_cast<char>('0' + ((u >> 3) & 7));
      out += static_cast<char>('0' + (u & 7));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string commentText(std::string_view text) {
  std::string out;
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    // A backslash before the newline would splice the next line into the
    // comment; control characters would end or garble it.
    if (c == '\\')
      out += '/';
    else if (u < 0x20 || u == 0x7f)
      out += ' ';
    else
      out += c;
  }
  return out;
}

} // namespace detail
} // namespace tilec::header
