#include "model/format/unpickler.h"

#include "model/tensor_map.h"

#include <torch/torch.h>

#include <cstring>
#include <map>
#include <unordered_map>

namespace gs::model {
namespace {

constexpr size_t kMaxStack = 50'000'000;

struct StorageType {
  const char* name;
  c10::ScalarType dtype;
};
constexpr StorageType kStorageTypes[] = {
    {"FloatStorage", c10::ScalarType::Float}, {"DoubleStorage", c10::ScalarType::Double},
    {"HalfStorage", c10::ScalarType::Half},   {"BFloat16Storage", c10::ScalarType::BFloat16},
    {"LongStorage", c10::ScalarType::Long},   {"IntStorage", c10::ScalarType::Int},
    {"ShortStorage", c10::ScalarType::Short}, {"CharStorage", c10::ScalarType::Char},
    {"ByteStorage", c10::ScalarType::Byte},   {"BoolStorage", c10::ScalarType::Bool}};

class Unpickler {
 public:
  Unpickler(std::string_view data, const StorageLoader& loader) : d_(data), loader_(loader) {}
  Result<PyRef> run();

 private:
  Status fail(const std::string& what) const {
    return {StatusCode::MalformedRecord, "pickle: " + what + " at byte " + std::to_string(pos_)};
  }
  bool need(size_t n) const { return pos_ + n <= d_.size(); }
  uint64_t readLE(size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(d_[pos_ + i])) << (8 * i);
    pos_ += n;
    return v;
  }
  bool readLine(std::string& out) {
    const size_t end = d_.find('\n', pos_);
    if (end == std::string_view::npos) return false;
    out = std::string(d_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return true;
  }
  PyRef pop() {
    PyRef v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  bool popMark(std::vector<PyRef>& out) {
    if (marks_.empty() || marks_.back() > stack_.size()) return false;
    out.assign(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back())),
               std::make_move_iterator(stack_.end()));
    stack_.resize(marks_.back());
    marks_.pop_back();
    return true;
  }
  Status push(PyRef v) {
    if (stack_.size() >= kMaxStack) return fail("stack too deep");
    stack_.push_back(std::move(v));
    return Status::ok();
  }

  Status step(unsigned char op, bool& stop);
  Status pushInt(int64_t v) {
    auto p = PyValue::make(PyValue::Kind::Int);
    p->integer = v;
    return push(p);
  }
  Status pushString(size_t len_bytes, PyValue::Kind kind);
  Status makeTuple(size_t n);
  Status setItems(PyRef dict, std::vector<PyRef>& kv);
  Status reduce(const PyRef& callable, const PyRef& args);
  Status build(const PyRef& state);
  Status persistentLoad(const PyRef& pid);
  Status rebuildTensor(const std::vector<PyRef>& args);

  std::string_view d_;
  const StorageLoader& loader_;
  size_t pos_ = 0;
  std::vector<PyRef> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, PyRef> memo_;
  std::map<std::string, PyRef> storages_;
};

Status Unpickler::pushString(size_t len_bytes, PyValue::Kind kind) {
  if (!need(len_bytes)) return fail("truncated string length");
  const uint64_t n = readLE(len_bytes);
  if (!need(n)) return fail("string runs past the end");
  auto v = PyValue::make(kind);
  v->text = std::string(d_.substr(pos_, n));
  pos_ += n;
  return push(v);
}

Status Unpickler::makeTuple(size_t n) {
  if (stack_.size() < n) return fail("tuple needs more items than the stack holds");
  auto t = PyValue::make(PyValue::Kind::Tuple);
  t->items.assign(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
  stack_.resize(stack_.size() - n);
  return push(t);
}

Status Unpickler::setItems(PyRef dict, std::vector<PyRef>& kv) {
  if (kv.size() % 2) return fail("odd number of dict items");
  if (dict->kind != PyValue::Kind::Dict && dict->kind != PyValue::Kind::Object) return fail("SETITEM on a non-dict");
  for (size_t i = 0; i < kv.size(); i += 2) dict->pairs.emplace_back(kv[i], kv[i + 1]);
  return Status::ok();
}

Status Unpickler::rebuildTensor(const std::vector<PyRef>& a) {
  // (storage, storage_offset, size, stride, [requires_grad, backward_hooks, metadata])
  if (a.size() < 4 || a[0]->kind != PyValue::Kind::Storage || a[1]->kind != PyValue::Kind::Int ||
      a[2]->kind != PyValue::Kind::Tuple || a[3]->kind != PyValue::Kind::Tuple ||
      a[2]->items.size() != a[3]->items.size())
    return fail("malformed tensor record");
  std::vector<int64_t> size, stride;
  int64_t extent = a[1]->integer;  // last element index + 1
  bool empty = false;
  for (size_t i = 0; i < a[2]->items.size(); ++i) {
    const auto& s = a[2]->items[i];
    const auto& st = a[3]->items[i];
    if (s->kind != PyValue::Kind::Int || st->kind != PyValue::Kind::Int || s->integer < 0 || st->integer < 0 ||
        s->integer > (int64_t{1} << 40) || st->integer > (int64_t{1} << 40))
      return fail("malformed tensor shape");
    size.push_back(s->integer);
    stride.push_back(st->integer);
    if (s->integer == 0)
      empty = true;
    else
      extent += (s->integer - 1) * st->integer;
  }
  const auto& storage = a[0]->tensor;
  if (a[1]->integer < 0 || (!empty && extent + 1 > storage.numel()))
    return fail("tensor " + shapeString(size) + " reaches past the end of its storage (" +
                std::to_string(storage.numel()) + " elements)");
  auto t = PyValue::make(PyValue::Kind::Tensor);
  t->tensor = empty ? torch::empty(size, storage.options())
                    : storage.as_strided(size, stride, a[1]->integer).clone(at::MemoryFormat::Contiguous);
  return push(t);
}

Status Unpickler::reduce(const PyRef& callable, const PyRef& args) {
  if (args->kind != PyValue::Kind::Tuple) return fail("REDUCE arguments are not a tuple");
  const std::string name = callable->kind == PyValue::Kind::Global ? callable->text : "";
  if (name == "collections.OrderedDict") {
    if (!args->items.empty()) return fail("OrderedDict with constructor arguments");
    return push(PyValue::make(PyValue::Kind::Dict));
  }
  if (name == "torch._utils._rebuild_tensor_v2" || name == "torch._utils._rebuild_tensor")
    return rebuildTensor(args->items);
  if (name == "torch._utils._rebuild_parameter" || name == "torch._utils._rebuild_parameter_with_state") {
    if (args->items.empty() || args->items[0]->kind != PyValue::Kind::Tensor) return fail("malformed parameter record");
    return push(args->items[0]);
  }
  // Anything else is recorded, never called.
  auto obj = PyValue::make(PyValue::Kind::Object);
  obj->type = callable;
  obj->items = args->items;
  return push(obj);
}

Status Unpickler::build(const PyRef& state) {
  if (stack_.empty()) return fail("BUILD on an empty stack");
  PyRef& target = stack_.back();
  if (target->kind != PyValue::Kind::Object && target->kind != PyValue::Kind::Dict) return Status::ok();
  // state is a dict of attributes, or (dict, slots); OrderedDict's `_metadata` lands here too.
  PyRef attrs = state;
  if (state->kind == PyValue::Kind::Tuple && !state->items.empty()) attrs = state->items[0];
  if (target->kind == PyValue::Kind::Object && attrs->kind == PyValue::Kind::Dict)
    target->pairs.insert(target->pairs.end(), attrs->pairs.begin(), attrs->pairs.end());
  return Status::ok();
}

Status Unpickler::persistentLoad(const PyRef& pid) {
  // ('storage', torch.FloatStorage, key, location, numel)
  if (pid->kind != PyValue::Kind::Tuple || pid->items.size() < 5 || !pid->items[0]->isString() ||
      pid->items[0]->text != "storage" || pid->items[1]->kind != PyValue::Kind::Global || !pid->items[2]->isString() ||
      pid->items[4]->kind != PyValue::Kind::Int || pid->items[4]->integer < 0)
    return fail("unsupported persistent id");
  const std::string& key = pid->items[2]->text;
  if (auto it = storages_.find(key); it != storages_.end()) return push(it->second);
  c10::ScalarType dtype = c10::ScalarType::Undefined;
  for (const auto& s : kStorageTypes)
    if (pid->items[1]->text == std::string("torch.") + s.name) dtype = s.dtype;
  if (dtype == c10::ScalarType::Undefined) return fail("unsupported storage type " + pid->items[1]->text);
  auto loaded = loader_(key, dtype, pid->items[4]->integer);
  if (!loaded.isOk()) return loaded.status();
  auto v = PyValue::make(PyValue::Kind::Storage);
  v->tensor = loaded.value();
  storages_[key] = v;
  return push(v);
}

Result<PyRef> Unpickler::run() {
  bool stop = false;
  while (!stop) {
    if (!need(1)) return fail("ends without STOP (truncated?)");
    const auto op = static_cast<unsigned char>(d_[pos_++]);
    if (Status s = step(op, stop); !s.isOk()) return s;
  }
  if (stack_.empty()) return fail("empty result");
  return stack_.back();
}

Status Unpickler::step(unsigned char op, bool& stop) {
  using K = PyValue::Kind;
  auto needStack = [&](size_t n) { return stack_.size() >= n; };
  switch (op) {
    case 0x80:  // PROTO
      if (!need(1)) return fail("truncated PROTO");
      if (static_cast<unsigned char>(d_[pos_]) > 5) return fail("unsupported pickle protocol");
      ++pos_;
      return Status::ok();
    case 0x95:  // FRAME: framing is only a read-ahead hint
      if (!need(8)) return fail("truncated FRAME");
      pos_ += 8;
      return Status::ok();
    case '.':  // STOP
      stop = true;
      return Status::ok();
    case '(':  // MARK
      marks_.push_back(stack_.size());
      return Status::ok();
    case '0':  // POP
      if (!needStack(1)) return fail("POP on an empty stack");
      stack_.pop_back();
      return Status::ok();
    case '1': {  // POP_MARK
      std::vector<PyRef> discard;
      return popMark(discard) ? Status::ok() : fail("POP_MARK without MARK");
    }
    case '2':  // DUP
      if (!needStack(1)) return fail("DUP on an empty stack");
      return push(stack_.back());
    case 'N': return push(PyValue::make(K::None));
    case 0x88:
    case 0x89: {  // NEWTRUE / NEWFALSE
      auto v = PyValue::make(K::Bool);
      v->boolean = op == 0x88;
      return push(v);
    }
    case 'J':
      if (!need(4)) return fail("truncated BININT");
      return pushInt(static_cast<int32_t>(readLE(4)));
    case 'K':
      if (!need(1)) return fail("truncated BININT1");
      return pushInt(static_cast<int64_t>(readLE(1)));
    case 'M':
      if (!need(2)) return fail("truncated BININT2");
      return pushInt(static_cast<int64_t>(readLE(2)));
    case 0x8a: {  // LONG1: little-endian two's complement
      if (!need(1)) return fail("truncated LONG1");
      const size_t n = readLE(1);
      if (n > 8 || !need(n)) return fail("LONG1 too large");
      uint64_t v = n ? readLE(n) : 0;
      if (n && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);
      return pushInt(static_cast<int64_t>(v));
    }
    case 'I':
    case 'L': {  // INT / LONG (text); "01"/"00" are booleans
      std::string line;
      if (!readLine(line)) return fail("truncated INT");
      if (!line.empty() && line.back() == 'L') line.pop_back();
      if (line == "01" || line == "00") {
        auto v = PyValue::make(K::Bool);
        v->boolean = line == "01";
        return push(v);
      }
      char* end = nullptr;
      const long long v = std::strtoll(line.c_str(), &end, 10);
      if (line.empty() || *end) return fail("malformed INT");
      return pushInt(v);
    }
    case 'G': {  // BINFLOAT, big-endian
      if (!need(8)) return fail("truncated BINFLOAT");
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<unsigned char>(d_[pos_ + i]);
      pos_ += 8;
      auto v = PyValue::make(K::Float);
      std::memcpy(&v->real, &bits, 8);
      return push(v);
    }
    case 'F': {
      std::string line;
      if (!readLine(line)) return fail("truncated FLOAT");
      auto v = PyValue::make(K::Float);
      v->real = std::strtod(line.c_str(), nullptr);
      return push(v);
    }
    case 'X': return pushString(4, K::String);
    case 0x8c: return pushString(1, K::String);
    case 0x8d: return pushString(8, K::String);
    case 'T': return pushString(4, K::String);
    case 'U': return pushString(1, K::String);
    case 'B': return pushString(4, K::Bytes);
    case 'C': return pushString(1, K::Bytes);
    case 0x8e: return pushString(8, K::Bytes);
    case 'V': {  // UNICODE (raw text line)
      auto v = PyValue::make(K::String);
      if (!readLine(v->text)) return fail("truncated UNICODE");
      return push(v);
    }
    case ')': return push(PyValue::make(K::Tuple));
    case 0x85: return makeTuple(1);
    case 0x86: return makeTuple(2);
    case 0x87: return makeTuple(3);
    case 't': {
      auto t = PyValue::make(K::Tuple);
      if (!popMark(t->items)) return fail("TUPLE without MARK");
      return push(t);
    }
    case ']': return push(PyValue::make(K::List));
    case 0x8f: return push(PyValue::make(K::List));  // EMPTY_SET, kept as a list
    case 'l':
    case 0x91: {  // LIST / FROZENSET
      auto l = PyValue::make(K::List);
      if (!popMark(l->items)) return fail("LIST without MARK");
      return push(l);
    }
    case 'a': {  // APPEND
      if (!needStack(2)) return fail("APPEND on a short stack");
      PyRef item = pop();
      if (stack_.back()->kind != K::List) return fail("APPEND to a non-list");
      stack_.back()->items.push_back(std::move(item));
      return Status::ok();
    }
    case 'e':
    case 0x90: {  // APPENDS / ADDITEMS
      std::vector<PyRef> items;
      if (!popMark(items) || stack_.empty()) return fail("APPENDS without MARK");
      if (stack_.back()->kind != K::List) return fail("APPENDS to a non-list");
      auto& dst = stack_.back()->items;
      dst.insert(dst.end(), items.begin(), items.end());
      return Status::ok();
    }
    case '}': return push(PyValue::make(K::Dict));
    case 'd': {
      std::vector<PyRef> kv;
      if (!popMark(kv)) return fail("DICT without MARK");
      auto dict = PyValue::make(K::Dict);
      if (Status s = setItems(dict, kv); !s.isOk()) return s;
      return push(dict);
    }
    case 's': {
      if (!needStack(3)) return fail("SETITEM on a short stack");
      std::vector<PyRef> kv(2);
      kv[1] = pop();
      kv[0] = pop();
      return setItems(stack_.back(), kv);
    }
    case 'u': {
      std::vector<PyRef> kv;
      if (!popMark(kv) || stack_.empty()) return fail("SETITEMS without MARK");
      return setItems(stack_.back(), kv);
    }
    case 'c': {  // GLOBAL "module\nname\n": data, never imported
      auto g = PyValue::make(K::Global);
      std::string module, name;
      if (!readLine(module) || !readLine(name)) return fail("truncated GLOBAL");
      g->text = module + "." + name;
      return push(g);
    }
    case 0x93: {  // STACK_GLOBAL
      if (!needStack(2)) return fail("STACK_GLOBAL on a short stack");
      PyRef name = pop(), module = pop();
      if (!name->isString() || !module->isString()) return fail("STACK_GLOBAL needs two strings");
      auto g = PyValue::make(K::Global);
      g->text = module->text + "." + name->text;
      return push(g);
    }
    case 'R': {
      if (!needStack(2)) return fail("REDUCE on a short stack");
      PyRef args = pop(), callable = pop();
      return reduce(callable, args);
    }
    case 0x81:
    case 0x92: {  // NEWOBJ / NEWOBJ_EX: cls.__new__(cls, *args) is recorded as an object
      const size_t n = op == 0x81 ? 2 : 3;
      if (!needStack(n)) return fail("NEWOBJ on a short stack");
      if (op == 0x92) pop();  // kwargs
      PyRef args = pop(), cls = pop();
      auto obj = PyValue::make(K::Object);
      obj->type = cls;
      obj->items = args->items;
      return push(obj);
    }
    case 'b': {
      if (!needStack(2)) return fail("BUILD on a short stack");
      return build(pop());
    }
    case 'Q': {
      if (!needStack(1)) return fail("BINPERSID on an empty stack");
      return persistentLoad(pop());
    }
    case 'q':
    case 'r': {  // BINPUT / LONG_BINPUT
      const size_t n = op == 'q' ? 1 : 4;
      if (!need(n) || stack_.empty()) return fail("bad PUT");
      memo_[readLE(n)] = stack_.back();
      return Status::ok();
    }
    case 0x94:  // MEMOIZE
      if (stack_.empty()) return fail("MEMOIZE on an empty stack");
      memo_[memo_.size()] = stack_.back();
      return Status::ok();
    case 'h':
    case 'j': {  // BINGET / LONG_BINGET
      const size_t n = op == 'h' ? 1 : 4;
      if (!need(n)) return fail("truncated GET");
      auto it = memo_.find(readLE(n));
      if (it == memo_.end()) return fail("GET of an unknown memo entry");
      return push(it->second);
    }
    case 'p':
    case 'g': {  // PUT / GET (text)
      std::string line;
      if (!readLine(line)) return fail("truncated PUT/GET");
      const uint64_t key = std::strtoull(line.c_str(), nullptr, 10);
      if (op == 'p') {
        if (stack_.empty()) return fail("PUT on an empty stack");
        memo_[key] = stack_.back();
        return Status::ok();
      }
      auto it = memo_.find(key);
      if (it == memo_.end()) return fail("GET of an unknown memo entry");
      return push(it->second);
    }
    default: {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", op);
      return fail(std::string("unsupported opcode ") + hex + " (not used by torch.save state dicts)");
    }
  }
}

}  // namespace

Result<PyRef> unpickle(std::string_view bytes, const StorageLoader& load_storage) {
  return Unpickler(bytes, load_storage).run();
}

PyRef PyValue::get(const std::string& key) const {
  for (const auto& [k, v] : pairs)
    if (k && k->isString() && k->text == key) return v;
  return nullptr;
}

const char* PyValue::kindName() const {
  static const char* kNames[] = {"None",  "bool", "int",    "float",  "str",     "bytes", "list",
                                 "tuple", "dict", "global", "object", "storage", "tensor"};
  return kNames[static_cast<int>(kind)];
}

}  // namespace gs::model
