//===- Elaborator.h - Compile-time evaluation and tracing -------*- C++ -*-===//
//
// The Elaborator is a small Python interpreter over the AST. Outside a
// @T.prim_func it computes compile-time values; inside one it traces: every
// T.* primitive is checked and emits a tile-dialect op at the builder's
// insertion point, runtime scalars become arith ops, and device loops and
// branches become regions. The first error stops elaboration (as a Python
// exception would), after being reported with its notes.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_MLIRGEN_ELABORATOR_H
#define TILEC_LIB_MLIRGEN_ELABORATOR_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Diagnostics.h"
#include "tilec/MLIRGen/Autotune.h"
#include "tilec/MLIRGen/MLIRGen.h"
#include "tilec/Sema/Objects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

namespace tilec::tile {
class ParallelOp;
} // namespace tilec::tile

namespace tilec::sema {
/// A name's binding in a scope.
struct Binding {
  Value value;
  llvm::SMLoc loc;
  /// Device-region depth (loops/branches being traced) where it was bound.
  unsigned depth = 0;
  /// Non-empty: the name may not be used any more, and this says why.
  std::string poison;
};
/// A Python scope: names to bindings, with the enclosing scope as parent.
class Scope {
public:
  explicit Scope(std::shared_ptr<Scope> parent = nullptr)
      : parent(std::move(parent)) {}
  Binding *lookup(llvm::StringRef name);
  Binding *lookupLocal(llvm::StringRef name);
  void bind(llvm::StringRef name, Binding b) { vars[name] = std::move(b); }
  llvm::StringMap<Binding> &getVars() { return vars; }
  Scope *getParent() const { return parent.get(); }

private:
  std::shared_ptr<Scope> parent;
  llvm::StringMap<Binding> vars;
};
} // namespace tilec::sema

namespace tilec::mlirgen {

using sema::Binding;
using sema::Scope;

using sema::BufferObject;
using sema::DType;
using sema::MemScope;
using sema::RuntimeObject;
using sema::Value;





/// The names a compile-time module (`T`, `tilelang`, `math`, ...) provides;
/// nullopt for a module whose names are not checked.
std::optional<llvm::ArrayRef<llvm::StringRef>> moduleNames(llvm::StringRef module);
/// The names of the tilelang submodules, `typing` and `functools`
/// (TileLangModules.cpp); nullopt for others.
std::optional<llvm::ArrayRef<llvm::StringRef>>
tileLangModuleNames(llvm::StringRef module);
/// The string a `tilelang.PassConfigKey` member stands for
/// (`TL_ENABLE_FAST_MATH` -> "tl.enable_fast_math").
std::string passConfigKeyValue(llvm::StringRef member);
/// The T.* names FrontendPrimitives.cpp implements.
llvm::ArrayRef<llvm::StringRef> frontendPrimitiveNames();
/// The T.* names AsyncCopyPrimitives.cpp implements.
llvm::ArrayRef<llvm::StringRef> asyncCopyPrimitiveNames();
/// A set value: a list without duplicates (PyBuiltins.cpp).
Value makeSet(std::vector<Value> elts);
/// Whether `import <module>` names a module that exists at compile time.
bool isCompileTimeModule(llvm::StringRef module);
/// The one name tilec gives a TileLang object exported under several
/// modules (`tilelang.layout.make_swizzled_layout` -> `T.make_swizzled_layout`).
std::string canonicalBuiltin(llvm::StringRef qualified);
/// Whether `T.<primitive>` is a known TileLang primitive tilec does not
/// implement yet.
bool isNotSupportedYet(llvm::StringRef primitive);
/// Whether `name` is one of TileLang's sub-byte dtypes (`int4`,
/// `float4_e2m1fn`, ...), which tilec does not support yet.
bool isSubByteDType(llvm::StringRef name);
/// The candidate closest to `name` by edit distance, or "" if none is close.
std::string closestName(llvm::StringRef name,
                        llvm::ArrayRef<llvm::StringRef> candidates);

/// Poisons the names bound inside a device region being closed (their IR
/// values do not dominate the code after it): a later use reports
/// "`name` <reason>".
/// Poisons the run-time values bound inside a device region deeper than
/// `depth`; with `constantsToo`, compile-time values as well (a branch on
/// a run-time condition: which arm ran is not known at compile time).
void poisonRegionBindings(Scope &scope, unsigned depth, llvm::StringRef reason,
                          bool constantsToo = false);

/// Eager-style factories (Eager.cpp): a @tilelang.jit factory whose own body
/// opens `with T.Kernel` is traced as the kernel itself.
struct EagerTrace;
bool isEagerFactory(const ast::FunctionDefStmt &factory);
/// The factory's parameters that are launch arguments (tensors and runtime
/// scalars), in signature order.
std::vector<llvm::StringRef> eagerRuntimeParams(const ast::FunctionDefStmt &f);
/// The names the factory declares with `T.const("...")` string literals.
std::vector<std::string> eagerConstNames(const ast::FunctionDefStmt &f);

/// Folds a T.Parallel loop whose body is a single T.Parallel loop into one
/// loop over both iteration spaces, outer variables first (ParallelNest.cpp).
void mergeParallelNest(tile::ParallelOp outer);

/// How a statement ended.
enum class Flow { Normal, Break, Continue, Return, Error };

/// One activation of a function (or the module).
struct Frame {
  std::shared_ptr<Scope> scope;
  Value returnValue;
  llvm::StringRef functionName;
  /// The returned expression, for messages about what a function returned.
  llvm::SMRange returnRange = {};
};

/// An argument at a call site.
struct Arg {
  Value value;
  llvm::SMRange range;
  llvm::SMLoc loc() const { return range.Start; }
};
struct CallArgs {
  std::vector<Arg> positional;
  std::vector<std::pair<std::string, Arg>> keywords;
  llvm::SMRange range; // the whole call
  std::string callee;  // `T.copy`, for messages
};

/// A prim_func being traced.
struct TracedFunction {
  mlir::func::FuncOp func;
  /// T.dynamic symbol -> the index argument carrying it.
  llvm::DenseMap<sema::SymbolObject *, mlir::Value> symbols;
  unsigned kernelCount = 0;
};

/// A box of a buffer: what T.copy, T.gemm and friends operate on.
struct Region {
  std::shared_ptr<BufferObject> buffer;
  std::vector<Value> offsets;    // Int or Runtime index, one per dim
  std::vector<int64_t> extents;  // -1: to be inferred from the other side
  bool allPoints = false;        // written `A[i, j]` (TileLang's BufferLoad)
  llvm::SMRange range;
  std::string text() const;      // `[128, 32]`
};

/// Binary operators as the elaborator applies them at run time.
enum class BinaryOpLike {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow,
  Eq, Ne, Lt, Le, Gt, Ge, And, Or, BitAnd, BitOr, BitXor, LShift, RShift,
  Max, Min,
};

class Elaborator {
public:
  Elaborator(const ast::Module &module, mlir::MLIRContext &context,
             DiagnosticEngine &diag, const MLIRGenOptions &options);
  mlir::OwningOpRef<mlir::ModuleOp> run();
  /// The search spaces of the autotune factories (Autotune.cpp).
  mlir::LogicalResult listAutotune(std::vector<AutotuneSpace> &out);

  //===--------------------------------------------------------------------===//
  // Diagnostics and locations
  //===--------------------------------------------------------------------===//
  void error(llvm::SMLoc loc, const llvm::Twine &msg);
  void error(llvm::SMRange range, const llvm::Twine &msg);
  void note(llvm::SMLoc loc, const llvm::Twine &msg);
  mlir::Location loc(llvm::SMLoc loc);

  //===--------------------------------------------------------------------===//
  // Statements (Elaborator.cpp)
  //===--------------------------------------------------------------------===//
  Flow execBlock(llvm::ArrayRef<ast::StmtPtr> body, Frame &frame);
  Flow execStmt(const ast::Stmt &stmt, Frame &frame);
  Flow execAssign(const ast::AssignStmt &s, Frame &frame);
  Flow execAugAssign(const ast::AugAssignStmt &s, Frame &frame);
  Flow execIf(const ast::IfStmt &s, Frame &frame);
  Flow execIfArms(const ast::IfStmt &s, size_t k, Frame &frame);
  Flow execFor(const ast::ForStmt &s, Frame &frame);
  Flow execWhile(const ast::WhileStmt &s, Frame &frame);
  Flow execWith(const ast::WithStmt &s, Frame &frame);

  //===--------------------------------------------------------------------===//
  // `break` / `continue` in T.serial / T.unroll loops (LoopExits.cpp)
  //===--------------------------------------------------------------------===//
  /// The innermost loop's exit flags: for a device loop whose body has a
  /// `break` (`continue`), a local i1 set by it; the statements after one
  /// that may set a flag run under `if not (broken or skipped)`. Null
  /// flags: a device loop that takes no exits (T.Parallel, T.Pipelined).
  /// A null entry: a compile-time loop is innermost (Python's own exits).
  struct LoopExit {
    mlir::Value broken, skipped;
    /// Bumped by every traced exit, so a block sees that a statement
    /// may have set a flag.
    unsigned exits = 0;
  };
  std::vector<LoopExit *> loopExits;
  /// Makes the flags of a T.serial / T.unroll loop whose body exits, before
  /// the loop op is created.
  void makeLoopExitFlags(llvm::ArrayRef<ast::StmtPtr> body, LoopExit &exit,
                         mlir::Location loc);
  /// In a loop body: clears `skipped` for this iteration and runs the body
  /// under `if not broken`.
  Flow execLoopBody(llvm::ArrayRef<ast::StmtPtr> body, LoopExit &exit,
                    Frame &frame);
  /// `rest` of a block after a statement that may have exited.
  Flow execUnlessExited(llvm::ArrayRef<ast::StmtPtr> rest, LoopExit &exit,
                        Frame &frame);
  /// A traced `break` / `continue` statement; nullopt when it is Python's.
  std::optional<Flow> execLoopExit(const ast::Stmt &stmt);
  Flow execImport(const ast::Stmt &s, Frame &frame);
  Flow execFunctionDef(const ast::FunctionDefStmt &s, Frame &frame);
  Flow execAssert(const ast::AssertStmt &s, Frame &frame);
  Flow execDeviceLoop(const ast::ForStmt &s, sema::LoopSpec &spec,
                      Frame &frame);
  /// `T.Tensor(shape, dtype, X.data)` and T.im2col (Conv.cpp).
  mlir::FailureOr<Value> tensorView(const std::vector<Value> &shape,
                                    DType dtype, const Arg &data,
                                    const CallArgs &args);
  mlir::FailureOr<Value> im2col(CallArgs &args);
  /// T.Persistent (Persistent.cpp): the loop spec, and the loop over waves.
  mlir::FailureOr<Value> persistentLoop(CallArgs &args);
  Flow execPersistentLoop(const ast::ForStmt &s, const sema::LoopSpec &spec,
                          llvm::ArrayRef<const ast::NameExpr *> vars,
                          Frame &frame);
  Flow execScheduledBody(const ast::ForStmt &s, const sema::LoopSpec &spec,
                         Frame &frame);
  mlir::LogicalResult assignTo(const ast::Expr &target, const Value &value,
                               llvm::SMRange valueRange, Frame &frame);
  mlir::LogicalResult countStep(llvm::SMRange range);
  mlir::LogicalResult bindName(llvm::StringRef name, llvm::SMRange range,
                               const Value &value, Frame &frame);

  //===--------------------------------------------------------------------===//
  // Functions
  //===--------------------------------------------------------------------===//
  mlir::FailureOr<Value> callFunction(sema::FunctionObject &fn,
                                      CallArgs &args);
  mlir::LogicalResult tracePrimFunc(sema::FunctionObject &fn,
                                    llvm::StringRef name);
  mlir::LogicalResult instantiate(const ast::FunctionDefStmt &factory,
                                  sema::FunctionObject *fn,
                                  const InstanceSpec &spec,
                                  llvm::StringRef instanceName,
                                  const CallArgs *given = nullptr);

  //===--------------------------------------------------------------------===//
  // Eager-style factories (Eager.cpp)
  //===--------------------------------------------------------------------===//
  mlir::FailureOr<Value> traceEager(sema::FunctionObject &fn, CallArgs &args,
                                    const InstanceSpec &spec);
  /// `A: T.Tensor(...)` without a value: declares an eager factory's tensor
  /// parameter; anywhere else a bare annotation binds nothing.
  Flow execBareAnnotation(const ast::AnnAssignStmt &s, Frame &frame);
  /// T.const and T.empty.
  mlir::FailureOr<Value> callEagerPrimitive(llvm::StringRef name,
                                            CallArgs &args);
  mlir::LogicalResult declareEagerParam(llvm::StringRef name, const Value &ann,
                                        llvm::SMRange annRange, Frame &frame);
  mlir::Value eagerSymbolArg(sema::SymbolObject &sym, llvm::SMLoc at);
  /// The first identifier of host expression `e` that is not a symbol of
  /// the traced function ("" when all are): the device and the launch
  /// header compute such expressions from the symbols alone.
  std::string nonSymbolIn(llvm::StringRef e) const;
  /// For an error that needs `v` at compile time: when `v` is (or is
  /// computed from) a T.const size that got no -D value, the sentence that
  /// says so and how to give one; "" otherwise.
  std::string constHint(const Value &v) const;
  /// T.copy between two global tensors: a T.Parallel loop of element moves
  /// with bounds checks (ElementwiseTiles.cpp).
  /// T.fill of a region of a shared buffer or a fragment, as a T.Parallel
  /// loop over the region (ElementwiseTiles.cpp).
  mlir::LogicalResult emitRegionFill(const Region &box, mlir::Value value,
                                     llvm::SMRange range);
  mlir::LogicalResult emitGlobalCopy(const Region &src, const Region &dst,
                                     llvm::SMRange range);
  /// T.alloc_global outside T.Kernel: a workspace pointer argument of the
  /// launch (Workspace.cpp).
  mlir::FailureOr<Value> allocGlobalWorkspace(CallArgs &args);
  /// T.atomic_add of a tile into a tile: an element atomic per element.
  mlir::LogicalResult emitTileAtomicAdd(const Region &src, const Region &dst,
                                        llvm::SMRange range);
  /// T.annotate_layout of a `T.Layout(shape, lambda)` (IndexLayouts.cpp):
  /// honored on global tensors, whose element accesses then go through
  /// remapIndices.
  mlir::LogicalResult annotateIndexMap(BufferObject &buf,
                                       const sema::LayoutObject &lay,
                                       llvm::SMRange range);
  mlir::LogicalResult remapIndices(const BufferObject &buf,
                                   llvm::SmallVectorImpl<mlir::Value> &idx,
                                   llvm::SMRange range);

  //===--------------------------------------------------------------------===//
  // 32-bit index limits (IndexLimits.cpp)
  //===--------------------------------------------------------------------===//
  /// Why kernels cannot address a buffer of `shape` with 32-bit element
  /// offsets (its static element count passes INT32_MAX); "" when they can.
  /// `wide`: a global tensor of a kernel that may get 64-bit offsets
  /// (every -findex-bits but 32), whose limit is kMaxElements64.
  static std::string elementCountProblem(llvm::StringRef what,
                                         llvm::ArrayRef<Value> shape,
                                         bool wide = false);
  /// Launch-header checks that a tensor with T.dynamic dimensions has at
  /// most INT32_MAX elements.
  void addTensorSizeChecks(mlir::func::FuncOp func,
                           llvm::ArrayRef<Value> shape);
  /// A launch-header check that `v`, an index the kernel computes from
  /// T.dynamic symbols, fits in 32 bits.
  void noteHostIndex(const Value &v);
  /// `indexLimit`: a check the 32-bit index arithmetic needs, dropped from
  /// a kernel that is decided 64-bit (decideIndexWidths).
  void addLaunchCheck(mlir::func::FuncOp func, llvm::StringRef symbol,
                      llvm::StringRef condition, bool indexLimit = false);
  /// Records `tile.index_bits` on every prim_func (IndexWidth.h) and drops
  /// the index-limit launch checks of the 64-bit ones.
  void decideIndexWidths();
  /// The trip count of a loop with constant bounds that a 32-bit loop index
  /// cannot run (a bound or the index after the last iteration passes
  /// int32); nullopt when one can, or when a bound is not constant.
  static std::optional<int64_t> wideLoopTrips(const sema::LoopSpec &spec);
  static constexpr int64_t kMaxWideTrips = int64_t(INT32_MAX) << 30;
  /// Builds the nested loops of a `wide` T.serial loop at the insertion
  /// point, leaves the insertion point in the inner body and returns the
  /// 64-bit induction variable.
  mlir::Value buildWideLoop(const sema::LoopSpec &spec, mlir::Location loc);

  //===--------------------------------------------------------------------===//
  // 64-bit sizes and loop bounds (WideIndex.cpp)
  //===--------------------------------------------------------------------===//
  /// Makes argument `argNo` of `func` the launch argument of symbol `sym`
  /// (`tile.symbol`); a 64-bit one (`T.dynamic("n", "int64")`) is marked
  /// `tile.symbol_bits = 64` and makes the kernel 64-bit.
  void setSymbolArg(mlir::func::FuncOp func, unsigned argNo,
                    const sema::SymbolObject &sym);
  /// Makes `func`'s kernels 64-bit under -findex-bits=auto, for `why`
  /// (`tile.wide_index`; the first reason is kept). Under -findex-bits=32
  /// the callers report a located error instead.
  void requireWideIndex(mlir::func::FuncOp func, llvm::StringRef why);
  /// A run-time loop bound that a 32-bit loop index would truncate (an
  /// int64 or uint32 value: `T.serial(L[0])` with L[0] = 2^32 + 5 ran five
  /// times) makes the kernel 64-bit; a located error under -findex-bits=32.
  mlir::LogicalResult noteLoopBound(mlir::Value bound, llvm::SMRange range);
  /// Launch-header checks that a tensor with a 64-bit T.dynamic dimension
  /// has at most kMaxElements64 elements; true when `shape` has one.
  bool addWideTensorChecks(mlir::func::FuncOp func,
                           llvm::ArrayRef<Value> shape);

  //===--------------------------------------------------------------------===//
  // Expressions (Expressions.cpp)
  //===--------------------------------------------------------------------===//
  mlir::FailureOr<Value> eval(const ast::Expr &e, Frame &frame);
  mlir::FailureOr<Value> evalName(const ast::NameExpr &e, Frame &frame);
  mlir::FailureOr<Value> evalAttribute(const ast::AttributeExpr &e,
                                       Frame &frame);
  mlir::FailureOr<Value> evalCall(const ast::CallExpr &e, Frame &frame);
  mlir::FailureOr<Value> evalSubscript(const ast::SubscriptExpr &e,
                                       Frame &frame);
  mlir::FailureOr<Value> evalBinary(ast::BinOpKind op, const Value &l,
                                    const Value &r, llvm::SMRange range);
  mlir::FailureOr<Value> evalCompare(const ast::CompareExpr &e, Frame &frame);
  mlir::FailureOr<Value> evalBoolOp(const ast::BoolOpExpr &e, Frame &frame);
  mlir::FailureOr<Value> evalUnary(const ast::UnaryOpExpr &e, Frame &frame);
  mlir::FailureOr<Value> evalIfExp(const ast::IfExpExpr &e, Frame &frame);
  /// Runs clauses `k..` of a comprehension, collecting its element (and,
  /// for a dict comprehension, its value into `values`).
  mlir::LogicalResult evalComprehension(const ast::ListCompExpr &lc, size_t k,
                                        Frame &frame, std::vector<Value> &out,
                                        std::vector<Value> *values = nullptr);
  mlir::FailureOr<Value> evalShortCircuit(const ast::BoolOpExpr &e, size_t k,
                                          const Value &acc, Frame &frame);
  /// `cond ? then : else` with each side evaluated only under its branch.
  mlir::FailureOr<Value>
  lazySelect(const Value &cond, llvm::SMRange range,
             llvm::function_ref<mlir::FailureOr<Value>()> thenFn,
             llvm::function_ref<mlir::FailureOr<Value>()> elseFn);
  mlir::FailureOr<CallArgs> evalCallArgs(const ast::CallExpr &e,
                                         Frame &frame);
  mlir::FailureOr<Value> callValue(const Value &callee, CallArgs &args);

  /// Reads `A[i, j]` (a load) when a subscript is used as a scalar.
  mlir::FailureOr<Value> toScalar(const Value &v, llvm::SMRange range);
  /// Rejects a constant index past the end of a static global tensor.
  mlir::LogicalResult checkElementInBounds(const sema::SubscriptObject &s);
  /// A runtime operand for arithmetic: loads subscripts, resolves symbols.
  mlir::FailureOr<Value> materialize(const Value &v, llvm::SMRange range);
  /// The IR value of a number or runtime scalar, converted to `type`.
  mlir::FailureOr<mlir::Value> toIR(const Value &v, mlir::Type type,
                                    llvm::SMRange range);
  /// An index-typed IR value (block indices, offsets, loop bounds).
  mlir::FailureOr<mlir::Value> toIndex(const Value &v, llvm::SMRange range);
  mlir::Value constIndex(int64_t v);
  /// Wraps an IR value as a Value; index values get an affine atom.
  Value wrapRuntime(mlir::Value v, DType dtype, bool isIndex);
  mlir::FailureOr<Value> runtimeBinary(BinaryOpLike op, const Value &l,
                                       const Value &r, llvm::SMRange range);
  mlir::FailureOr<Value> castTo(const Value &v, DType to, llvm::SMRange range);
  std::optional<DType> toDType(const Value &v);
  /// toDType that also takes `T.ptr` (for T.Tensor's element type).
  std::optional<DType> pointerTableDType(const Value &v);
  /// Fails with a diagnostic if `v` is an address loaded from a T.ptr
  /// table, which only T.make_tensor may use.
  mlir::LogicalResult refusePointer(const Value &v, llvm::SMRange range);
  mlir::Type irType(DType t);

  //===--------------------------------------------------------------------===//
  // Built-ins (Builtins.cpp, Primitives.cpp)
  //===--------------------------------------------------------------------===//
  mlir::FailureOr<Value> callBuiltin(llvm::StringRef name, CallArgs &args);
  mlir::FailureOr<Value> callPythonBuiltin(llvm::StringRef name,
                                           CallArgs &args);
  mlir::FailureOr<Value> callMath(llvm::StringRef name, CallArgs &args);
  mlir::FailureOr<Value> callPrimitive(llvm::StringRef name, CallArgs &args);

  //===--------------------------------------------------------------------===//
  // More of the Python subset (PyBuiltins.cpp)
  //===--------------------------------------------------------------------===//
  Flow execRaise(const ast::RaiseStmt &s, Frame &frame);
  mlir::FailureOr<Value> evalDictOrSetComp(const ast::ListCompExpr &lc,
                                           Frame &frame);
  /// `dict(...)` and `set(...)`.
  mlir::FailureOr<Value> callCollection(llvm::StringRef name, CallArgs &args);
  /// Python's `str(v)`.
  static std::string pyStr(const Value &v);
  mlir::FailureOr<Value> formatString(llvm::StringRef templ, CallArgs &args);
  /// `self.m(...)` for list, dict, str and int methods; an empty optional
  /// when `self` has no such method.
  mlir::FailureOr<std::optional<Value>>
  callMethod(const Value &self, llvm::StringRef m, CallArgs &args,
             llvm::SMRange attrRange);
  mlir::FailureOr<std::optional<Flow>>
  assignItem(const ast::SubscriptExpr &target, const Value &value,
             Frame &frame);

  //===--------------------------------------------------------------------===//
  // tilelang.* submodules, pass configs, functools (TileLangModules.cpp)
  //===--------------------------------------------------------------------===//
  /// `module.attr` for the names TileLangModules provides; an empty
  /// optional when it is an ordinary name of `module`.
  mlir::FailureOr<std::optional<Value>>
  moduleAttribute(llvm::StringRef module, llvm::StringRef attr,
                  llvm::SMRange range);
  mlir::FailureOr<Value> callTileLang(llvm::StringRef name, CallArgs &args);
  /// The T.* primitives of FrontendPrimitives.cpp; an empty optional for
  /// any other name.
  mlir::FailureOr<std::optional<Value>>
  callFrontendPrimitive(llvm::StringRef name, CallArgs &args);
  /// The Hopper forms of HopperPrimitives.cpp (mbarriers, T.set_max_nreg,
  /// T.fence_proxy_async); an empty optional for any other name.
  mlir::FailureOr<std::optional<Value>>
  callHopperPrimitive(llvm::StringRef name, CallArgs &args);
  /// TileLang's raw asynchronous copies (AsyncCopyPrimitives.cpp):
  /// T.access_ptr, T.ptx_cp_async, T.cp_async_barrier_noinc and the group
  /// fences T.ptx_commit_group / T.ptx_wait_group; an empty optional for
  /// any other name.
  mlir::FailureOr<std::optional<Value>>
  callAsyncCopyPrimitive(llvm::StringRef name, CallArgs &args);
  /// T.wgmma_gemm (HopperPrimitives.cpp): the target must have wgmma.
  mlir::LogicalResult requireWgmmaTarget(const CallArgs &args);
  /// A barrier argument (a T.alloc_barrier buffer of one barrier, or one
  /// element of it): the barrier memref and the index.
  mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
  barrierRef(const Arg &arg, llvm::StringRef role);
  /// T.tma_copy, once its regions are checked (Primitives.cpp, T.copy).
  mlir::LogicalResult emitTmaCopy(const Region &src, const Region &dst,
                                  llvm::ArrayRef<mlir::Value> srcOffsets,
                                  llvm::ArrayRef<mlir::Value> dstOffsets,
                                  const std::optional<Arg> &barrier,
                                  const CallArgs &args);
  /// `with T.ws(i, ...)`: a tile.ws region.
  Flow execWs(const ast::WithStmt &s, CallArgs &args, Frame &frame);
  mlir::FailureOr<Value> callFunctools(llvm::StringRef name, CallArgs &args);
  mlir::FailureOr<Value> callPartial(const sema::PartialObject &p,
                                     CallArgs &args);
  /// Checks and keeps `@tilelang.jit(pass_configs=...)` on `fn`.
  mlir::LogicalResult recordPassConfigs(sema::FunctionObject &fn,
                                        const Value &configs,
                                        const ast::Expr &expr);
  /// Records a factory's pass configs on its kernel func.
  void applyPassConfigs(mlir::func::FuncOp func,
                        const sema::FunctionObject &fn);
  /// Lifts the per-kernel options onto the module (fast math must agree).
  mlir::LogicalResult checkModulePassConfigs();
  /// Binds call arguments to a signature; `names` after `numRequired` are
  /// optional. Reports arity/keyword errors against `args.callee`.
  mlir::FailureOr<std::vector<std::optional<Arg>>>
  bindArgs(CallArgs &args, llvm::ArrayRef<llvm::StringRef> names,
           unsigned numRequired);
  mlir::FailureOr<Region> toRegion(const Arg &arg, const llvm::Twine &role);
  mlir::FailureOr<std::shared_ptr<BufferObject>>
  toBuffer(const Arg &arg, const llvm::Twine &role);
  mlir::LogicalResult requireKernel(const CallArgs &args);
  mlir::FailureOr<int64_t> requireInt(const Arg &arg, llvm::StringRef what);
  mlir::FailureOr<DType> requireDType(const Arg &arg);
  mlir::FailureOr<Value> allocate(MemScope scope, CallArgs &args);
  /// allocate() with its shape and dtype arguments bound.
  mlir::FailureOr<Value> allocateBound(MemScope scope, CallArgs &args,
                                       const Arg &shapeArg,
                                       const Arg &dtypeArg);

  //===--------------------------------------------------------------------===//
  // State
  //===--------------------------------------------------------------------===//
  const ast::Module &astModule;
  mlir::MLIRContext &context;
  DiagnosticEngine &diag;
  const MLIRGenOptions &options;
  mlir::OpBuilder builder;
  mlir::ModuleOp module;
  mlir::StringAttr fileName;

  /// Non-null while a prim_func is traced.
  TracedFunction *traced = nullptr;
  /// Non-null while an eager-style factory's body is traced.
  EagerTrace *eager = nullptr;
  /// Number of tile.kernel regions around the insertion point.
  unsigned kernelDepth = 0;
  /// `threads=(x, y[, z])` of the current T.Kernel: the block is launched
  /// with x*y*z threads in one dimension and T.get_thread_binding(d) takes
  /// the linear thread index apart (x fastest, as CUDA numbers threads).
  llvm::SmallVector<int64_t, 3> blockDims;
  /// Number of device loops/branches around the insertion point.
  unsigned regionDepth = 0;
  /// Python call depth, bounded so recursion cannot exhaust the stack.
  unsigned callDepth = 0;
  /// The name an assignment is about to bind (names allocations).
  std::string pendingName;
  /// The instance being built, for func names and messages.
  std::string instanceName;
  /// Functions traced so far (name -> op) and which were returned.
  llvm::StringMap<mlir::func::FuncOp> tracedFuncs;
  bool hadError = false;
  /// Compile-time evaluation steps so far (bounded by countStep).
  uint64_t steps = 0;
  /// True while a factory is being instantiated (its body runs).
  bool instantiating = false;
  /// The prim_func the last instantiation returned.
  Value lastInstance;
  /// Where the last completed function call returned from.
  llvm::SMRange lastReturnRange;
  /// Whether the "iket markers are accepted without effect" warning was given.
  bool warnedIket = false;
  /// Kernel name -> where its pass_configs were written.
  llvm::StringMap<llvm::SMLoc> passConfigLocs;
  /// Factories the file instantiated itself at the top level.
  llvm::SmallPtrSet<const ast::FunctionDefStmt *, 4> instantiatedAtTopLevel;

  //===--------------------------------------------------------------------===//
  // Compile-time classes (Classes.cpp)
  //===--------------------------------------------------------------------===//
  Flow execClassDef(const ast::ClassDefStmt &def, Frame &frame);
  mlir::FailureOr<Value> instantiateClass(const Value &cls, CallArgs &args);
  /// `obj.attr` / `Class.attr`; a method read through an object is bound
  /// to it.
  mlir::FailureOr<Value>
  objectAttribute(const Value &base, llvm::StringRef attr, llvm::SMRange range);
  /// tilelang.quantize's expression builders (Quantize.cpp).
  mlir::FailureOr<Value> callQuantize(llvm::StringRef name, CallArgs &args);
  /// T.rng_init / T.rng_rand (Random.cpp).
  mlir::FailureOr<Value> callRandom(llvm::StringRef name, CallArgs &args);
  /// T.make_tensor over an element of a T.ptr table (PointerTensors.cpp).
  mlir::FailureOr<Value> callMakeTensor(CallArgs &args);
  /// T.reshape (Reshape.cpp).
  mlir::FailureOr<Value> callReshape(CallArgs &args);
  mlir::FailureOr<Value>
  reshapeFragment(std::shared_ptr<sema::BufferObject> view,
                  llvm::StringRef baseName, llvm::ArrayRef<int64_t> storage,
                  const Arg &shapeArg);
  mlir::LogicalResult remapReshape(const BufferObject &view,
                                   llvm::SmallVectorImpl<mlir::Value> &idx,
                                   llvm::SMRange range);
  /// An error at `range` if `buf` is a T.reshape view (tile operations and
  /// layouts address the viewed buffer's shape, not the view's).
  mlir::LogicalResult refuseReshapeView(const BufferObject &buf,
                                        llvm::SMRange range,
                                        const llvm::Twine &what);
  /// An error at `range` if `buf` is a `T.reshape` view of a fragment
  /// (T.gemm, T.annotate_layout, T.print take the allocation).
  mlir::LogicalResult refuseFragmentView(const BufferObject &buf,
                                         llvm::SMRange range,
                                         const llvm::Twine &what);
  /// `obj.attr = value` / `Class.attr = value`.
  mlir::LogicalResult setObjectAttribute(const Value &base,
                                         llvm::StringRef attr,
                                         const Value &value);
};

} // namespace tilec::mlirgen

#endif // TILEC_LIB_MLIRGEN_ELABORATOR_H
