// A tiny inference "engine": y = fc2(relu(fc1(x))) in plain C++ on float32 or
// bfloat16, dumping every module and API call in msprobe's layout with
// io::DumpWriter, exactly as msprobe's PyTorch dumper names them for the same
// torch model (torch_reference.py), so `tensordiff compare` or `msprobe
// compare` pairs the two dumps.
//
//   engine_dump OUT [--dtype float32|bfloat16] [--task tensor|statistics|md5] [--framework pytorch|mindspore] [--inject]
//
// Weights and inputs are small multiples of 1/8 so that every product and sum
// of fc1 is exact in both dtypes and both programs agree bit for bit; --inject
// plants a kernel bug (a leaky ReLU, slope 1/64) that compare must locate at
// Functional.relu.0.forward.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <tensordiff/io/dump_writer.hpp>

namespace td = tensordiff;
namespace io = tensordiff::io;

namespace {

constexpr int kBatch = 2, kIn = 4, kHidden = 8, kOut = 3;

// The model's numbers, written the same way in torch_reference.py.
float x_at(int b, int i) { return float((b * kIn + i) % 9 - 4) / 4.0f; }
float w1_at(int h, int i) { return float((h * 7 + i * 3) % 11 - 5) / 8.0f; }
float b1_at(int h) { return float((h * 5) % 7 - 3) / 8.0f; }
float w2_at(int o, int h) { return float((o * 5 + h * 3) % 13 - 6) / 8.0f; }
float b2_at(int o) { return float(o % 3 - 1) / 4.0f; }

template <class T> T from_float(float f) { return T(f); }
template <class T> float to_float(T v) { return float(v); }

template <class T> struct Tensor2 {
  std::vector<T> v;
  td::Shape shape;
  td::TensorView view() const { return td::TensorView::of(v.data(), shape); }
};

template <class T, class F> Tensor2<T> make(td::Shape shape, F&& f) {
  Tensor2<T> t;
  t.shape = shape;
  const int rows = int(shape[0]), cols = shape.size() > 1 ? int(shape[1]) : 1;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) t.v.push_back(from_float<T>(f(r, c)));
  return t;
}

// torch's CPU linear: float accumulation, one rounding to T at the end.
template <class T> Tensor2<T> linear(const Tensor2<T>& x, const Tensor2<T>& w, const Tensor2<T>& b) {
  const int rows = int(x.shape[0]), in = int(x.shape[1]), out = int(w.shape[0]);
  Tensor2<T> y;
  y.shape = {rows, out};
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out; ++o) {
      float acc = to_float(b.v[o]);
      for (int i = 0; i < in; ++i) acc += to_float(x.v[r * in + i]) * to_float(w.v[o * in + i]);
      y.v.push_back(from_float<T>(acc));
    }
  return y;
}

template <class T> Tensor2<T> relu(const Tensor2<T>& x, bool inject) {
  Tensor2<T> y = x;
  for (auto& e : y.v) {
    const float f = to_float(e);
    if (f < 0) e = from_float<T>(inject ? f / 64.0f : 0.0f);  // the planted bug: a leaky ReLU
  }
  return y;
}

std::vector<std::string> here(int line, const char* code) {
  return {"File examples/engine_dump/engine.cpp, line " + std::to_string(line) + ", in forward, \n " + code};
}

// One forward pass, dumped as msprobe dumps `MLP` (fc1/fc2 nn.Linear, F.relu) at level "mix".
template <class T> void run(io::DumpWriter& w, bool inject) {
  const auto x = make<T>({kBatch, kIn}, x_at);
  const auto w1 = make<T>({kHidden, kIn}, w1_at);
  const auto b1 = make<T>({kHidden}, [](int h, int) { return b1_at(h); });
  const auto w2 = make<T>({kOut, kHidden}, w2_at);
  const auto b2 = make<T>({kOut}, [](int o, int) { return b2_at(o); });

  auto layer = [&](const char* name, const Tensor2<T>& in, const Tensor2<T>& W, const Tensor2<T>& B, int line) {
    auto m = w.module(name, "Linear");
    m.stack(here(line, "h = fc(x)"));
    Tensor2<T> out;
    {
      auto f = w.api("Functional.linear");
      f.input(in.view()).input(io::DumpValue(W.view(), true)).input(io::DumpValue(B.view(), true));
      out = linear(in, W, B);
      f.output(out.view()).stack(here(__LINE__, "return F.linear(input, self.weight, self.bias)"));
    }
    m.input(in.view()).output(out.view());
    m.parameter("weight", io::DumpValue(W.view(), true)).parameter("bias", io::DumpValue(B.view(), true));
    return out;
  };
  const auto h = layer("fc1", x, w1, b1, __LINE__);
  Tensor2<T> a;
  {
    auto r = w.api("Functional.relu");
    r.input(h.view());
    a = relu(h, inject);
    r.output(a.view()).stack(here(__LINE__, "h = F.relu(h)"));
  }
  const auto y = layer("fc2", a, w2, b2, __LINE__);
  std::printf("y[0] = %g %g %g\n", to_float(y.v[0]), to_float(y.v[1]), to_float(y.v[2]));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: engine_dump OUT [--dtype float32|bfloat16] [--task tensor|statistics|md5] "
                         "[--framework pytorch|mindspore] [--inject]\n");
    return 2;
  }
  io::DumpWriterOptions o;
  o.task = io::DumpTask::tensor;
  o.level = "mix";
  o.rank = 0;
  bool bf16 = false, inject = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--inject") inject = true;
    else if (a == "--dtype" && i + 1 < argc) bf16 = std::string(argv[++i]) == "bfloat16";
    else if (a == "--framework" && i + 1 < argc) o.framework = argv[++i];
    else if (a == "--task" && i + 1 < argc) {
      const std::string t = argv[++i];
      o.task = t == "md5" ? io::DumpTask::md5 : t == "statistics" ? io::DumpTask::statistics : io::DumpTask::tensor;
    } else {
      std::fprintf(stderr, "engine_dump: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  try {
    io::DumpWriter w(argv[1], o);
    if (bf16) run<td::bfloat16>(w, inject);
    else run<float>(w, inject);
    w.flush();
    std::printf("dump: %s\n", w.dir().c_str());
  } catch (const td::Error& e) {
    std::fprintf(stderr, "engine_dump: %s\n", e.what());
    return 2;
  }
  return 0;
}
