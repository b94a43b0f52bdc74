//===- TileLangModules.cpp - tilelang.* submodules, pass configs, typing --===//
//
// What the `tilelang` package provides besides `tilelang.language` (`T`),
// evaluated at compile time: `tilelang.PassConfigKey` and the pass_configs
// of @tilelang.jit, `tilelang.cdiv` / `next_power_of_2` / `tilelang.math`,
// `tilelang.carver.arch.driver` (answered from the target chip, since an
// ahead-of-time compile has no device to ask), and the aliases TileLang
// exports under other modules (`tilelang.layout.make_swizzled_layout`,
// `tilelang.tileop.base.GemmWarpPolicy`). `typing` and `functools` are here
// too: they are the other pure-Python modules TileLang kernels import.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Target/TargetInfo.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace tilec::mlirgen {

//===----------------------------------------------------------------------===//
// tilelang.PassConfigKey
//===----------------------------------------------------------------------===//

namespace {
struct PassConfigKeyInfo {
  StringRef member;
  StringRef value;
};
} // namespace

/// Every member of TileLang's PassConfigKey (tilelang/transform/
/// pass_config.py), the current ones and those older releases defined, with
/// the string each stands for. Which of them mean something to tilec is
/// decided in applyPassConfigs; docs/language.md lists the rest.
static const PassConfigKeyInfo kPassConfigKeys[] = {
    {"TL_SIMPLIFY", "tl.Simplify"},
    {"TL_SIMPLIFY_TRANSITIVELY_PROVE_INEQUALITIES",
     "transitively_prove_inequalities"},
    {"TL_SIMPLIFY_CONVERT_BOOLEAN_TO_AND_OF_ORS",
     "convert_boolean_to_and_of_ors"},
    {"TL_SIMPLIFY_APPLY_CONSTRAINTS_TO_BOOLEAN_BRANCHES",
     "apply_constraints_to_boolean_branches"},
    {"TL_SIMPLIFY_PROPAGATE_KNOWNS_TO_PROVE_CONDITIONAL",
     "propagate_knowns_to_prove_conditional"},
    {"TL_SIMPLIFY_PROPAGATE_KNOWNS_TO_SIMPLIFY_EXPRESSIONS",
     "propagate_knowns_to_simplify_expressions"},
    {"TL_SIMPLIFY_ENABLE_LET_INLINE", "enable_simplify_let_inline"},
    {"TL_DYNAMIC_ALIGNMENT", "tl.dynamic_alignment"},
    {"TL_DISABLE_DYNAMIC_TAIL_SPLIT", "tl.disable_dynamic_tail_split"},
    {"TL_DISABLE_BUFFER_INIT_CHECK", "tl.disable_buffer_init_check"},
    {"TL_DISABLE_DATA_RACE_CHECK", "tl.disable_data_race_check"},
    {"TL_DISABLE_PRELOWER_SEMANTIC_CHECK", "tl.disable_prelower_semantic_check"},
    {"TL_DISABLE_WARP_SPECIALIZED", "tl.disable_warp_specialized"},
    {"TL_ENABLE_AUTO_SCHEDULE", "tl.enable_auto_schedule"},
    {"TL_ENABLE_AGGRESSIVE_AUTO_SCHEDULE", "tl.enable_aggressive_auto_schedule"},
    {"TL_ENABLE_AUTO_WARP_SPECIALIZATION", "tl.enable_auto_warp_specialization"},
    {"TL_ENABLE_FAST_MATH", "tl.enable_fast_math"},
    {"TL_DISABLE_FAST_MATH", "tl.disable_fast_math"},
    {"TL_PTXAS_REGISTER_USAGE_LEVEL", "tl.ptxas_register_usage_level"},
    {"TL_ENABLE_PTXAS_VERBOSE_OUTPUT", "tl.enable_ptxas_verbose_output"},
    {"TL_DEVICE_COMPILE_FLAGS", "tl.device_compile_flags"},
    {"TL_EMIT_LINE_DIRECTIVES", "tl.emit_line_directives"},
    {"TL_CONFIG_INDEX_BITWIDTH", "tl.config_index_bitwidth"},
    {"TL_ENABLE_REDUCER_PLAN_VERBOSE", "tl.enable_reducer_plan_verbose"},
    {"TL_LAYOUT_COST_MODEL", "tl.layout_cost_model"},
    {"TL_REDUCER_FORCE_BASELINE", "tl.reducer_force_baseline"},
    {"TL_DISABLE_TMA_LOWER", "tl.disable_tma_lower"},
    {"TL_DISABLE_SAFE_MEMORY_ACCESS", "tl.disable_safe_memory_legalize"},
    {"TL_DISABLE_VECTORIZE_256", "tl.disable_vectorize_256"},
    {"TL_ENABLE_FP32X2_REDUCTION", "tl.enable_fp32x2_reduction"},
    {"TL_ENABLE_ASYNC_COPY", "tl.enable_async_copy"},
    {"TL_ENABLE_LOWER_LDGSTG", "tl.enable_lower_ldgstg"},
    {"TL_ENABLE_LOWER_LDGSTG_PREDICATED", "tl.enable_lower_ldgstg_predicated"},
    {"TL_ENABLE_VECTORIZE_PLANNER_VERBOSE",
     "tl.enable_vectorize_planner_verbose"},
    {"TL_DISABLE_WGMMA", "tl.disable_wgmma"},
    {"TL_DEBUG_MERGE_SHARED_MEMORY_ALLOCATIONS",
     "tl.debug_merge_shared_memory_allocations"},
    {"TL_ENABLE_AGGRESSIVE_SHARED_MEMORY_MERGE",
     "tl.enable_aggressive_shared_memory_merge"},
    {"TL_DISABLE_SHARED_MEMORY_REUSE", "tl.disable_shared_memory_reuse"},
    {"TL_DISABLE_SHUFFLE_ELECT", "tl.disable_shuffle_elect"},
    {"TL_DISABLE_LOOP_UNSWITCHING", "tl.disable_loop_unswitching"},
    {"TL_LOOP_UNSWITCHING_ALLOW_NON_TRIVIAL_ELSE",
     "tl.loop_unswitching_allow_non_trivial_else"},
    {"TL_IF_STMT_BINDING_INLINE_REPLAYABLE_BINDS",
     "tl.if_stmt_binding_inline_replayable_binds"},
    {"TL_DISABLE_THREAD_STORAGE_SYNC", "tl.disable_thread_storage_sync"},
    {"TL_FORCE_LET_INLINE", "tl.force_let_inline"},
    {"TL_AST_PRINT_ENABLE", "tl.ast_print_enable"},
    {"TL_LAYOUT_VISUALIZATION_ENABLE", "tl.layout_visualization_enable"},
    {"TL_LAYOUT_VISUALIZATION_FORMATS", "tl.layout_visualization_formats"},
    {"TL_STORAGE_REWRITE_DETECT_INPLACE", "tl.storage_rewrite_detect_inplace"},
    {"TL_DISABLE_OUT_OF_BOUND_WARNING", "tl.disable_out_of_bound_warning"},
    {"TL_ENABLE_DUMP_IR", "tl.enable_dump_ir"},
    {"TL_DUMP_IR_DIR", "tl.dump_ir_path"},
    {"TL_PASS_PROFILE", "tl.pass_profile"},
    {"TL_PASS_PROFILE_THRESHOLD_MS", "tl.pass_profile_threshold_ms"},
    {"TIR_ENABLE_EQUIV_TERMS_IN_CSE", "tir.enable_equiv_terms_in_cse_tir"},
    {"TIR_DISABLE_CSE", "tir.disable_cse_tir"},
    {"TIR_SIMPLIFY", "tir.Simplify"},
    {"TIR_DISABLE_STORAGE_REWRITE", "tir.disable_storage_rewrite"},
    {"TIR_DISABLE_VECTORIZE", "tir.disable_vectorize"},
    {"TIR_USE_ASYNC_COPY", "tir.use_async_copy"},
    {"TIR_ENABLE_DEBUG", "tir.enable_debug"},
    {"TIR_MERGE_STATIC_SMEM", "tir.merge_static_smem"},
    {"TIR_ADD_LOWER_PASS", "tir.add_lower_pass"},
    {"TIR_NOALIAS", "tir.noalias"},
    {"CUDA_KERNELS_OUTPUT_DIR", "cuda.kernels_output_dir"},
};

static const PassConfigKeyInfo *findPassConfigMember(StringRef member) {
  for (const PassConfigKeyInfo &k : kPassConfigKeys)
    if (k.member == member)
      return &k;
  return nullptr;
}

/// A string key as TileLang's PassContext accepts it: the value of a member;
/// newer TileLang spells the TIR ones `tirx.` (both are accepted).
static const PassConfigKeyInfo *findPassConfigValue(StringRef value) {
  std::string tir = value.starts_with("tirx.")
                        ? ("tir." + value.drop_front(5)).str()
                        : value.str();
  for (const PassConfigKeyInfo &k : kPassConfigKeys)
    if (k.value == tir)
      return &k;
  return nullptr;
}

std::string passConfigKeyValue(StringRef member) {
  const PassConfigKeyInfo *k = findPassConfigMember(member);
  return k ? k->value.str() : member.str();
}

static std::vector<StringRef> passConfigMembers() {
  std::vector<StringRef> names;
  for (const PassConfigKeyInfo &k : kPassConfigKeys)
    names.push_back(k.member);
  return names;
}

static constexpr StringRef kPassConfigEnum = "tilelang.PassConfigKey";

//===----------------------------------------------------------------------===//
// Module tables
//===----------------------------------------------------------------------===//

static const StringRef kTransform[] = {"PassConfigKey", "simplify_prim_func"};
static const StringRef kTilelangMath[] = {"next_power_of_2", "cdiv"};
static const StringRef kCarver[] = {"arch"};
static const StringRef kCarverArch[] = {"driver"};
static const StringRef kDriver[] = {
    "get_num_sms", "get_max_dynamic_shared_size_bytes",
    "get_shared_memory_per_block", "get_registers_per_block"};
static const StringRef kTileop[] = {"GemmWarpPolicy", "base"};
static const StringRef kTileopBase[] = {"GemmWarpPolicy"};
static const StringRef kFp8[] = {"determine_fp8_type"};
static const StringRef kTools[] = {"cuda"};
static const StringRef kToolsCuda[] = {"iket"};
static const StringRef kIket[] = {"mark", "range", "payload"};
static const StringRef kTyping[] = {"Optional", "Callable", "Any", "List",
                                    "Tuple", "Dict", "Union", "Literal",
                                    "Sequence", "Iterable"};
static const StringRef kFunctools[] = {"partial", "reduce"};
/// tilelang.quantize's TIR expression builders that tilec provides (the
/// unpacking of integers packed into a wider storage type).
static const StringRef kQuantize[] = {
    "_tir_packed_to_unsigned_convert", "_tir_packed_to_signed_convert",
    "_tir_packed_int_to_int_convert",
    "_tir_packed_to_unsigned_convert_with_zeros"};
/// TileLang's CUDA intrinsics helpers that tilec provides: the swizzled
/// layout for ldmatrix-read shared tiles (`tilelang.intrinsics` in older
/// releases).
static const StringRef kCudaIntrinsics[] = {"make_mma_swizzle_layout"};
/// What tilec has of `from tilelang import tvm`.
static const StringRef kTvm[] = {"DataType"};

std::optional<llvm::ArrayRef<StringRef>> tileLangModuleNames(StringRef module) {
  if (module == "tilelang.transform")
    return llvm::ArrayRef<StringRef>(kTransform);
  if (module == "tilelang.math")
    return llvm::ArrayRef<StringRef>(kTilelangMath);
  if (module == "tilelang.carver")
    return llvm::ArrayRef<StringRef>(kCarver);
  if (module == "tilelang.carver.arch")
    return llvm::ArrayRef<StringRef>(kCarverArch);
  if (module == "tilelang.carver.arch.driver")
    return llvm::ArrayRef<StringRef>(kDriver);
  if (module == "tilelang.tileop")
    return llvm::ArrayRef<StringRef>(kTileop);
  if (module == "tilelang.tileop.base")
    return llvm::ArrayRef<StringRef>(kTileopBase);
  if (module == "tilelang.language.fp8")
    return llvm::ArrayRef<StringRef>(kFp8);
  if (module == "tilelang.tools")
    return llvm::ArrayRef<StringRef>(kTools);
  if (module == "tilelang.tools.cuda")
    return llvm::ArrayRef<StringRef>(kToolsCuda);
  if (module == "tilelang.tools.cuda.iket")
    return llvm::ArrayRef<StringRef>(kIket);
  if (module == "typing")
    return llvm::ArrayRef<StringRef>(kTyping);
  if (module == "functools")
    return llvm::ArrayRef<StringRef>(kFunctools);
  if (module == "tilelang.quantize")
    return llvm::ArrayRef<StringRef>(kQuantize);
  if (module == "tilelang.tvm")
    return llvm::ArrayRef<StringRef>(kTvm);
  if (module == "tilelang.cuda.intrinsics" || module == "tilelang.intrinsics")
    return llvm::ArrayRef<StringRef>(kCudaIntrinsics);
  if (module == kPassConfigEnum || module == "tilelang.transform.PassConfigKey") {
    static const std::vector<StringRef> members = passConfigMembers();
    return llvm::ArrayRef<StringRef>(members);
  }
  return std::nullopt;
}

bool isCompileTimeModule(StringRef module) {
  return llvm::is_contained(
      {"tilelang", "math", "itertools", "tilelang.layout", "tilelang.autotuner",
       "tilelang.transform", "tilelang.math", "tilelang.carver",
       "tilelang.carver.arch", "tilelang.tileop", "tilelang.tileop.base",
       "tilelang.language.fp8", "tilelang.tools", "tilelang.tools.cuda",
       "typing", "functools", "tilelang.quantize", "tilelang.cuda.intrinsics",
       "tilelang.intrinsics"},
      module);
}

std::string canonicalBuiltin(StringRef q) {
  // TileLang exports some names under several modules; tilec implements
  // each once, under the name `T` gives it.
  if (q == "tilelang.transform.PassConfigKey")
    return kPassConfigEnum.str();
  if (q == "tilelang.tileop.GemmWarpPolicy" ||
      q == "tilelang.tileop.base.GemmWarpPolicy")
    return "T.GemmWarpPolicy";
  if (q == "tilelang.layout.make_swizzled_layout")
    return "T.make_swizzled_layout";
  if (q == "tilelang.intrinsics.make_mma_swizzle_layout")
    return "tilelang.cuda.intrinsics.make_mma_swizzle_layout";
  if (q == "tilelang.tvm.DataType")
    return "tilelang.DataType";
  if (q == "tilelang.math.cdiv")
    return "tilelang.cdiv";
  if (q == "tilelang.math.next_power_of_2")
    return "tilelang.next_power_of_2";
  // `tilelang.language.copy` is `T.copy`; its submodules keep their names.
  if (q.starts_with("tilelang.language.") &&
      !q.starts_with("tilelang.language.fp8"))
    return ("T." + q.drop_front(StringRef("tilelang.language.").size())).str();
  return q.str();
}

FailureOr<std::optional<Value>>
Elaborator::moduleAttribute(StringRef module, StringRef attr, SMRange range) {
  std::string q = (module + "." + attr).str();
  if (module == kPassConfigEnum) {
    if (findPassConfigMember(attr))
      return std::optional<Value>(Value::enumMember(kPassConfigEnum.str(),
                                                    attr.str()));
    std::vector<StringRef> names = passConfigMembers();
    std::string best = closestName(attr, names);
    error(range, "`tilelang.PassConfigKey` has no member `" + attr + "`" +
                     (best.empty() ? "" : "; did you mean `" + best + "`?"));
    return failure();
  }
  std::string c = canonicalBuiltin(q);
  if (c != q)
    return std::optional<Value>(Value::builtin(c));
  return std::optional<Value>();
}

//===----------------------------------------------------------------------===//
// Calls: tilelang.cdiv, next_power_of_2, the carver driver, functools
//===----------------------------------------------------------------------===//

/// SMs of the part tilec takes as each chip's reference (what
/// `driver.get_num_sms()` reports on it): H100/H200 SXM for sm_90a, A100
/// for sm_80, MI250X (one GCD) for gfx90a, MI300X for gfx942.
static std::optional<int64_t> multiprocessorCount(StringRef chip) {
  if (chip == "sm_90a")
    return 132;
  if (chip == "sm_80")
    return 108;
  if (chip == "gfx90a")
    return 110;
  if (chip == "gfx942")
    return 304;
  return std::nullopt;
}

FailureOr<Value> Elaborator::callTileLang(StringRef name, CallArgs &args) {
  auto &pos = args.positional;
  if (name == "tilelang.cdiv" || name == "tilelang.next_power_of_2") {
    bool cdiv = name == "tilelang.cdiv";
    if (pos.size() != (cdiv ? 2u : 1u) || !args.keywords.empty()) {
      error(args.range, "`" + name + "` takes " + (cdiv ? "two" : "one") +
                            " integer argument" + (cdiv ? "s" : ""));
      return failure();
    }
    if (cdiv)
      return callPrimitive("T.ceildiv", args);
    FailureOr<int64_t> n = requireInt(pos[0], "the argument of `" + name.str() + "`");
    if (failed(n))
      return failure();
    if (*n > (int64_t(1) << 62)) {
      error(pos[0].range, "`" + name + "` of " + Twine(*n) + " overflows");
      return failure();
    }
    // TileLang: 1 << (n - 1).bit_length(), so 0 and 1 give 1.
    int64_t p = 1;
    while (p < *n)
      p <<= 1;
    return Value::integer(p);
  }
  if (name.starts_with("tilelang.carver.arch.driver.")) {
    StringRef fn = name.drop_front(StringRef("tilelang.carver.arch.driver.").size());
    auto b = bindArgs(args, {"device_id", "format"}, 0);
    if (failed(b))
      return failure();
    std::unique_ptr<TargetInfo> info = TargetInfo::get(options.target);
    std::optional<int64_t> sms = multiprocessorCount(options.target);
    if (!info || !sms) {
      error(args.range, "`" + name + "` has no answer for target `" +
                            options.target + "`");
      return failure();
    }
    if (fn == "get_num_sms")
      return Value::integer(*sms);
    if (fn == "get_registers_per_block")
      return Value::integer(info->registersPerBlock());
    int64_t bytes = fn == "get_max_dynamic_shared_size_bytes"
                        ? info->sharedMemoryPerMultiprocessor()
                        : info->defaultSharedMemoryPerBlock();
    if ((*b)[1]) {
      const Value &f = (*b)[1]->value;
      StringRef unit = f.is(Value::Str) ? StringRef(f.getStr()) : "";
      if (unit == "kb")
        bytes /= 1024;
      else if (unit == "mb")
        bytes /= 1024 * 1024;
      else if (unit != "bytes") {
        error((*b)[1]->range, "`format` must be \"bytes\", \"kb\" or \"mb\"");
        return failure();
      }
    }
    return Value::integer(bytes);
  }
  if (name == "tilelang.language.fp8.determine_fp8_type") {
    // TileLang picks the FNUZ variant on CDNA 3, OCP e4m3 elsewhere; tilec
    // has the OCP types only, so gfx942 is refused rather than answered
    // with a type of different bits.
    if (options.target == "gfx942") {
      error(args.range, "`determine_fp8_type` names float8_e4m3fnuz on "
                        "gfx942, which tilec does not support yet");
      return failure();
    }
    return Value::dtype(DType::Float8E4M3);
  }
  if (name.starts_with("tilelang.tools.cuda.iket.")) {
    // iket's in-kernel trace markers. tilec has no iket runtime to record
    // them into: they are accepted, change nothing in the kernel, and the
    // file is warned once that its trace will be empty.
    if (!warnedIket) {
      warnedIket = true;
      diag.warning(args.range, "iket markers are accepted without effect: "
                               "tilec records no iket trace");
    }
    if (name.ends_with(".range"))
      return Value::builtin(name.str()); // a context for `with`
    return Value::none();
  }
  if (name == "tilelang.DataType") {
    // TVM's DataType(str): the dtype, whose `.bits` kernels read.
    if (pos.size() != 1 || !args.keywords.empty()) {
      error(args.range, "`DataType` takes one dtype");
      return failure();
    }
    FailureOr<DType> dt = requireDType(pos[0]);
    if (failed(dt))
      return failure();
    return Value::dtype(*dt);
  }
  if (name == "tilelang.transform.simplify_prim_func")
    return Value::builtin(name.str()); // a decorator without effect here
  if (name.starts_with("tilelang.quantize."))
    return callQuantize(name, args);
  if (name == "tilelang.cuda.intrinsics.make_mma_swizzle_layout")
    return callPrimitive(name, args); // with the other layouts
  error(args.range, "`" + name + "` is not available in .tile files");
  return failure();
}

FailureOr<Value> Elaborator::callFunctools(StringRef name, CallArgs &args) {
  auto &pos = args.positional;
  if (name == "functools.reduce") {
    if (pos.size() < 2 || pos.size() > 3 || !args.keywords.empty() ||
        !pos[1].value.isSequence()) {
      error(args.range, "`functools.reduce` takes a function, a tuple or list "
                        "and an optional initial value");
      return failure();
    }
    std::vector<Value> items = pos[1].value.getElements();
    Value acc;
    size_t k = 0;
    if (pos.size() == 3) {
      acc = pos[2].value;
    } else if (items.empty()) {
      error(pos[1].range, "`functools.reduce` of an empty sequence with no "
                          "initial value");
      return failure();
    } else {
      acc = items[k++];
    }
    for (; k < items.size(); ++k) {
      CallArgs call;
      call.range = args.range;
      call.callee = args.callee;
      call.positional = {Arg{acc, pos[1].range}, Arg{items[k], pos[1].range}};
      FailureOr<Value> r = callValue(pos[0].value, call);
      if (failed(r))
        return failure();
      acc = *r;
    }
    return acc;
  }
  if (name == "functools.partial") {
    if (pos.empty()) {
      error(args.range, "`functools.partial` needs a function");
      return failure();
    }
    auto fn = std::make_shared<sema::FunctionObject>();
    auto bound = std::make_shared<sema::PartialObject>();
    bound->callee = pos[0].value;
    for (size_t k = 1; k < pos.size(); ++k)
      bound->args.push_back(pos[k].value);
    for (auto &[kw, a] : args.keywords)
      bound->keywords.push_back({kw, a.value});
    fn->partial = bound;
    return Value::function(fn);
  }
  error(args.range, "`" + name + "` is not available in .tile files");
  return failure();
}

FailureOr<Value> Elaborator::callPartial(const sema::PartialObject &p,
                                         CallArgs &args) {
  CallArgs call;
  call.range = args.range;
  call.callee = args.callee;
  for (const Value &v : p.args)
    call.positional.push_back(Arg{v, args.range});
  call.positional.insert(call.positional.end(), args.positional.begin(),
                         args.positional.end());
  for (const auto &[kw, v] : p.keywords)
    if (llvm::none_of(args.keywords,
                      [&](const auto &k) { return k.first == kw; }))
      call.keywords.push_back({kw, Arg{v, args.range}});
  call.keywords.insert(call.keywords.end(), args.keywords.begin(),
                       args.keywords.end());
  return callValue(p.callee, call);
}

//===----------------------------------------------------------------------===//
// @tilelang.jit(pass_configs=...)
//===----------------------------------------------------------------------===//

LogicalResult Elaborator::recordPassConfigs(sema::FunctionObject &fn,
                                            const Value &configs,
                                            const ast::Expr &expr) {
  SMRange range = expr.getRange();
  auto *dict = llvm::dyn_cast<ast::DictExpr>(&expr);
  if (configs.isNone())
    return success();
  if (!configs.is(Value::Dict)) {
    error(range, "`pass_configs` must be a dict, got `" + configs.repr() + "`");
    return failure();
  }
  std::vector<std::pair<std::string, Value>> out;
  for (size_t i = 0; i < configs.getItems().size(); ++i) {
    const auto &[k, v] = configs.getItems()[i];
    // A dict display's items are its keys in order (duplicates aside).
    SMRange at = dict && dict->getKeys().size() == configs.getItems().size()
                     ? dict->getKeys()[i]->getRange()
                     : range;
    const PassConfigKeyInfo *info = nullptr;
    if (k.is(Value::Enum) && k.getEnum().enumName == kPassConfigEnum)
      info = findPassConfigMember(k.getEnum().member);
    else if (k.is(Value::Str))
      info = findPassConfigValue(k.getStr());
    if (!info) {
      error(at, "`pass_configs` key " + k.repr() +
                       " is not a TileLang pass configuration "
                       "(tilelang.PassConfigKey.* or its string value)");
      return failure();
    }
    if (!v.isConstant()) {
      error(at, "`pass_configs` value of " + info->member.str() +
                       " must be a compile-time value");
      return failure();
    }
    out.push_back({info->value.str(), v});
  }
  fn.passConfigs = std::move(out);
  fn.passConfigsLoc = range.Start;
  return success();
}

/// Whether a pass-config value asks for the option: TVM reads these as
/// booleans, so any truthy value does.
static bool configSet(const sema::FunctionObject &fn, StringRef key) {
  for (const auto &[k, v] : fn.passConfigs)
    if (k == key)
      return v.truthy();
  return false;
}

void Elaborator::applyPassConfigs(func::FuncOp func,
                                  const sema::FunctionObject &fn) {
  if (fn.passConfigs.empty())
    return;
  // All of them, as written, for --emit=tile and the metadata.
  SmallVector<NamedAttribute> all;
  for (const auto &[k, v] : fn.passConfigs) {
    Attribute a = v.is(Value::Bool)    ? (Attribute)builder.getBoolAttr(v.getBool())
                  : v.is(Value::Int)   ? (Attribute)builder.getI64IntegerAttr(v.getInt())
                  : v.is(Value::Float) ? (Attribute)builder.getF64FloatAttr(v.getFloat())
                  : v.is(Value::Str)   ? (Attribute)builder.getStringAttr(v.getStr())
                                       : (Attribute)builder.getStringAttr(v.repr());
    all.push_back(builder.getNamedAttr(k, a));
  }
  func->setAttr("tile.pass_configs", builder.getDictionaryAttr(all));
  // The ones with a meaning for tilec, as attributes passes can test.
  // TL_DISABLE_FAST_MATH only states tilec's default.
  if (configSet(fn, "tl.enable_fast_math") &&
      !configSet(fn, "tl.disable_fast_math"))
    func->setAttr("tile.fast_math", builder.getUnitAttr());
  if (configSet(fn, "tl.disable_tma_lower"))
    func->setAttr("tile.disable_tma_lower", builder.getUnitAttr());
  if (configSet(fn, "tl.disable_warp_specialized"))
    func->setAttr("tile.disable_warp_specialized", builder.getUnitAttr());
  if (configSet(fn, "tl.disable_safe_memory_legalize"))
    func->setAttr("tile.disable_safe_memory_access", builder.getUnitAttr());
  if (configSet(fn, "tl.disable_shared_memory_reuse"))
    func->setAttr("tile.disable_shared_memory_reuse", builder.getUnitAttr());
}

LogicalResult Elaborator::checkModulePassConfigs() {
  // Fast math is applied to a whole output (one PTX module): the kernels of
  // a file must agree on it. The Hopper options are kept per kernel and, when
  // every kernel has them, on the module too.
  SmallVector<func::FuncOp> kernels;
  for (func::FuncOp f : module.getOps<func::FuncOp>())
    if (f->hasAttr("tile.factory") || f->hasAttr("tile.pass_configs"))
      kernels.push_back(f);
  if (kernels.empty())
    return success();
  for (StringRef a : {"tile.fast_math", "tile.disable_tma_lower",
                      "tile.disable_warp_specialized"}) {
    unsigned with = llvm::count_if(kernels, [&](func::FuncOp f) {
      return f->hasAttr(a);
    });
    if (with == kernels.size())
      module->setAttr(a, builder.getUnitAttr());
    if (a == "tile.fast_math" && with != 0 && with != kernels.size()) {
      func::FuncOp on = *llvm::find_if(kernels, [](func::FuncOp f) {
        return f->hasAttr("tile.fast_math");
      });
      func::FuncOp off = *llvm::find_if(kernels, [](func::FuncOp f) {
        return !f->hasAttr("tile.fast_math");
      });
      auto at = passConfigLocs.find(on.getSymName());
      error(at != passConfigLocs.end() ? at->second : llvm::SMLoc(),
            "kernel `" + on.getSymName() + "` asks for fast math "
            "(TL_ENABLE_FAST_MATH) but kernel `" + off.getSymName() +
            "` of the same file does not; tilec applies fast math to a "
            "whole file: put them in separate .tile files or use "
            "--fast-math for both");
      return failure();
    }
  }
  return success();
}

} // namespace tilec::mlirgen
