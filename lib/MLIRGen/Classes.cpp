//===- Classes.cpp - Compile-time classes --------------------------------===//
//
// The subset of Python classes that TileLang kernel files use for their
// compile-time configuration (a tuning space with `__init__` and attributes,
// helper methods): a `class` body runs once, like a function body, and what
// it binds becomes the class's attributes. Calling the class makes an object
// and runs `__init__` on it; `obj.attr` reads the object's own attributes,
// then the class's, and a method read through an object is bound to it
// (a partial application with `self`). Objects live at compile time only:
// they never reach the IR, only the values read from them do.
//
// Not in the subset (each a located error): base classes other than
// `object`, decorators on a class, metaclasses, and special methods other
// than `__init__` (an object is not callable, iterable or comparable except
// by identity).
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

using namespace mlir;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace tilec::mlirgen {

Flow Elaborator::execClassDef(const ast::ClassDefStmt &def, Frame &frame) {
  for (const ast::ExprPtr &base : def.getBases()) {
    // `class C(object):` is the same as `class C:`.
    auto *name = llvm::dyn_cast<ast::NameExpr>(base.get());
    if (name && name->getName() == "object" && !frame.scope->lookup("object"))
      continue;
    error(base->getRange(), "class inheritance is not supported in .tile "
                            "files (only `object` as a base class)");
    return Flow::Error;
  }
  auto cls = std::make_shared<sema::ClassObject>();
  cls->name = def.getName().str();

  // The body runs in a scope of its own, seeing the enclosing names.
  Frame body = frame;
  body.scope = std::make_shared<Scope>(frame.scope);
  body.returnValue = Value::none();
  Flow f = execBlock(def.getBody(), body);
  if (f == Flow::Error)
    return Flow::Error;
  if (f != Flow::Normal) {
    error(def.getNameRange(), "`return`, `break` or `continue` in the body "
                              "of class `" +
                                  def.getName() + "`");
    return Flow::Error;
  }

  // The attributes in the order the body bound them.
  std::vector<std::pair<std::string, Binding>> bound;
  for (auto &kv : body.scope->getVars())
    bound.push_back({kv.getKey().str(), kv.getValue()});
  llvm::sort(bound, [](const auto &a, const auto &b) {
    return a.second.loc.getPointer() < b.second.loc.getPointer();
  });
  for (auto &[name, b] : bound) {
    // Python: a method's body does not see the class body's names (it
    // reads them through `self` or the class), so its closure is the
    // scope around the class.
    if (b.value.is(Value::Function) &&
        b.value.getFunction().closure == body.scope)
      b.value.getFunction().closure = frame.scope;
    cls->attrs.push_back({name, b.value});
  }
  if (failed(bindName(def.getName(), def.getNameRange(),
                      Value::classObject(cls), frame)))
    return Flow::Error;
  return Flow::Normal;
}

FailureOr<Value> Elaborator::instantiateClass(const Value &clsValue,
                                              CallArgs &args) {
  std::shared_ptr<sema::ClassObject> cls = clsValue.getClassPtr();
  auto obj = std::make_shared<sema::InstanceObject>();
  obj->cls = cls;
  Value self = Value::instance(obj);
  const Value *init = cls->find("__init__");
  if (!init) {
    if (!args.positional.empty() || !args.keywords.empty()) {
      error(args.range, "`" + cls->name +
                            "()` takes no arguments: the "
                            "class defines no `__init__`");
      return failure();
    }
    return self;
  }
  if (!init->is(Value::Function)) {
    error(args.range, "`" + cls->name + ".__init__` is not a function");
    return failure();
  }
  CallArgs call = args;
  call.callee = cls->name + ".__init__";
  call.positional.insert(call.positional.begin(), Arg{self, args.range});
  FailureOr<Value> r = callValue(*init, call);
  if (failed(r))
    return failure();
  if (!r->isNone()) {
    error(args.range, "`" + cls->name +
                          ".__init__` should return None, "
                          "not `" +
                          r->repr() + "`");
    return failure();
  }
  return self;
}

FailureOr<Value> Elaborator::objectAttribute(const Value &base, StringRef attr,
                                             SMRange range) {
  sema::ClassObject &cls =
      base.is(Value::Class) ? base.getClass() : *base.getInstance().cls;
  if (base.is(Value::Instance))
    if (Value *own = base.getInstance().find(attr))
      return *own;
  if (const Value *v = cls.find(attr)) {
    // A function of the class read through an object is a method: bound
    // to the object, as `functools.partial(f, obj)`.
    if (base.is(Value::Instance) && v->is(Value::Function)) {
      auto fn = std::make_shared<sema::FunctionObject>();
      auto bound = std::make_shared<sema::PartialObject>();
      bound->callee = *v;
      bound->args.push_back(base);
      fn->partial = bound;
      return Value::function(fn);
    }
    return *v;
  }
  if (attr == "__name__" && base.is(Value::Class))
    return Value::string(cls.name);
  std::vector<StringRef> names;
  if (base.is(Value::Instance))
    for (const auto &kv : base.getInstance().attrs)
      names.push_back(kv.first);
  for (const auto &kv : cls.attrs)
    names.push_back(kv.first);
  std::string best = closestName(attr, names);
  error(range, (base.is(Value::Class) ? "class `" + cls.name + "`"
                                      : "`" + cls.name + "` object") +
                   " has no attribute `" + attr + "`" +
                   (best.empty() ? "" : "; did you mean `" + best + "`?"));
  return failure();
}

LogicalResult Elaborator::setObjectAttribute(const Value &base, StringRef attr,
                                             const Value &value) {
  auto set = [&](auto &attrs) {
    for (auto &kv : attrs)
      if (kv.first == attr) {
        kv.second = value;
        return;
      }
    attrs.push_back({attr.str(), value});
  };
  if (base.is(Value::Class))
    set(base.getClass().attrs);
  else
    set(base.getInstance().attrs);
  return success();
}

} // namespace tilec::mlirgen
