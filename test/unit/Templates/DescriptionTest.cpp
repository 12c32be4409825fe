//===- DescriptionTest.cpp - `forge-port new`'s description parser --------===//
//
// Phrasings that parse, each checked against the whole Request (through
// requestToJson, so every field is compared), and phrasings that must be
// refused, each with its message.
//
//===----------------------------------------------------------------------===//
#include "forge/Templates/Description.h"
#include "llvm/ADT/StringExtras.h"
#include <functional>
#include <gtest/gtest.h>

using namespace forge;
using namespace forge::templates;
using namespace llvm;

namespace {

std::string err(Error E) { return toString(std::move(E)); }

Request req(OpKind K, Scalar T, std::vector<int64_t> Shape,
            const std::function<void(Request &)> &Edit = nullptr) {
  Request R;
  R.Kind = K;
  R.Type = T;
  R.Shape = std::move(Shape);
  if (Edit)
    Edit(R);
  return R;
}

struct Case {
  const char *Text;
  Request Want;
};

void expectParses(ArrayRef<Case> Cases) {
  for (const Case &C : Cases) {
    Expected<Request> R = parseDescription(C.Text);
    if (!R) {
      ADD_FAILURE() << C.Text << ": " << err(R.takeError());
      continue;
    }
    Request Want = C.Want;
    Want.Description = C.Text;
    EXPECT_EQ(requestToJson(*R).dump(), requestToJson(Want).dump()) << C.Text;
    EXPECT_TRUE(R->Name.empty()) << C.Text;
  }
}

using K = OpKind;
using S = Scalar;

TEST(Description, TheIssuesFive) {
  expectParses({
      {"2D convolution with a 5x5 filter on a 4096x4096 float input",
       req(K::Stencil, S::F32, {4096, 4096},
           [](Request &R) {
             R.Filter = {5, 5};
           })},
      {"sum of 64M floats", req(K::Reduce, S::F32, {67108864})},
      {"sort 16M uint32 keys", req(K::Sort, S::U32, {16777216})},
      {"batched SGEMM, 256 matrices of 256x256",
       req(K::Gemm, S::F32, {256, 256, 256}, [](Request &R) { R.Batch = 256; })},
      {"row softmax over a 8192x1024 half matrix", req(K::RowSoftmax, S::F16, {8192, 1024})},
  });
}

TEST(Description, TheFiveInOtherWords) {
  expectParses({
      {"convolve a 2048 x 2048 image of doubles with a 3x3 kernel, zero padding",
       req(K::Stencil, S::F64, {2048, 2048},
           [](Request &R) {
             R.Filter = {3, 3};
             R.Border = "zero";
           })},
      {"add up 67,108,864 floats", req(K::Reduce, S::F32, {67108864})},
      {"radix sort of 2^24 unsigned int keys",
       req(K::Sort, S::U32, {16777216}, [](Request &R) { R.Algorithm = "radix"; })},
      {"a batch of 64 DGEMMs, M=N=K=128",
       req(K::Gemm, S::F64, {128, 128, 128}, [](Request &R) { R.Batch = 64; })},
      {"softmax of each row of a 4096 by 512 fp16 matrix", req(K::RowSoftmax, S::F16, {4096, 512})},
  });
}

TEST(Description, ReductionsAndScans) {
  auto Op = [](const char *O) { return [O](Request &R) { R.Operator = O; }; };
  expectParses({
      {"total of 16_777_216 ints", req(K::Reduce, S::I32, {16777216})},
      {"reduce 1<<20 floats with +", req(K::Reduce, S::F32, {1048576})},
      {"product of 1000 doubles", req(K::Reduce, S::F64, {1000}, Op("*"))},
      {"reduce 2^24 doubles with max", req(K::Reduce, S::F64, {16777216}, Op("max"))},
      {"largest of 16M floats", req(K::Reduce, S::F32, {16777216}, Op("max"))},
      {"minimum of 1Ki fp64", req(K::Reduce, S::F64, {1024}, Op("min"))},
      {"index of the largest of 16M floats", req(K::Reduce, S::F32, {16777216}, Op("argmax"))},
      {"argmin of 2 million ints", req(K::Reduce, S::I32, {2000000}, Op("argmin"))},
      {"compute the maximum value in an array of 10 million doubles",
       req(K::Reduce, S::F64, {10000000}, Op("max"))},
      {"write a fast CUDA kernel that sums 64M floats", req(K::Reduce, S::F32, {67108864})},
      {"sum of 4096x4096 floats", req(K::Reduce, S::F32, {16777216})},
      {"sum of 2 billion 32-bit integers", req(K::Reduce, S::I32, {2000000000})},
      {"sum of 1.5M uint64 numbers", req(K::Reduce, S::U64, {1572864})},
      {"prefix sum of 16M ints", req(K::Scan, S::I32, {16777216})},
      {"exclusive scan of 1M uint32",
       req(K::Scan, S::U32, {1048576}, [](Request &R) { R.Inclusive = false; })},
      {"cumulative max of 4 million floats", req(K::Scan, S::F32, {4000000}, Op("max"))},
      {"inclusive scan with min over 100000 ints", req(K::Scan, S::I32, {100000}, Op("min"))},
      {"exclusive prefix max of 1e6 floats", req(K::Scan, S::F32, {1000000},
                                                 [](Request &R) {
                                                   R.Operator = "max";
                                                   R.Inclusive = false;
                                                 })},
  });
}

TEST(Description, Sorts) {
  expectParses({
      {"sort 16M uint32 keys with float values descending", req(K::Sort, S::U32, {16777216},
                                                                [](Request &R) {
                                                                  R.ValueType = S::F32;
                                                                  R.Descending = true;
                                                                })},
      {"sort 1M key-value pairs of uint32 keys and float values",
       req(K::Sort, S::U32, {1048576}, [](Request &R) { R.ValueType = S::F32; })},
      {"sort 16M uint32 keys with values",
       req(K::Sort, S::U32, {16777216}, [](Request &R) { R.ValueType = S::U32; })},
      {"merge sort 1M doubles in descending order", req(K::Sort, S::F64, {1048576},
                                                        [](Request &R) {
                                                          R.Algorithm = "merge";
                                                          R.Descending = true;
                                                        })},
      {"order 1M unsigned 64-bit integers, largest first",
       req(K::Sort, S::U64, {1048576}, [](Request &R) { R.Descending = true; })},
      {"sort 16M keys", req(K::Sort, S::F32, {16777216})},
  });
}

TEST(Description, Gemms) {
  expectParses({
      {"matmul of M=1024 N=512 K=256 floats", req(K::Gemm, S::F32, {1024, 512, 256})},
      {"DGEMM 1024x512x256 with A transposed",
       req(K::Gemm, S::F64, {1024, 512, 256}, [](Request &R) { R.TransA = true; })},
      {"SGEMM 4096^3 with transposed B",
       req(K::Gemm, S::F32, {4096, 4096, 4096}, [](Request &R) { R.TransB = true; })},
      {"C = A^T * B, 2048x2048 half GEMM with tensor cores",
       req(K::Gemm, S::F16, {2048, 2048, 2048},
           [](Request &R) {
             R.TransA = true;
             R.AllowLowerPrecision = true;
           })},
      {"GEMM with A and B transposed, M=512 N=256 K=128",
       req(K::Gemm, S::F32, {512, 256, 128}, [](Request &R) { R.TransA = R.TransB = true; })},
      {"multiply two 1024x1024 matrices", req(K::Gemm, S::F32, {1024, 1024, 1024})},
      {"multiply a 1024x512 matrix by a 512x256 matrix", req(K::Gemm, S::F32, {1024, 256, 512})},
      {"hgemm 512 x 512 x 64", req(K::Gemm, S::F16, {512, 512, 64})},
  });
}

TEST(Description, StencilsTransposesAndTheRest) {
  expectParses({
      {"1D stencil of radius 3 over 16M floats",
       req(K::Stencil, S::F32, {16777216}, [](Request &R) { R.Filter = {7}; })},
      {"3x3 blur of a 1920x1080 image", req(K::Stencil, S::F32, {1920, 1080},
                                            [](Request &R) {
                                              R.Filter = {3, 3};
                                            })},
      {"separable 7x7 filter on a 2048x2048 float image with zero padding",
       req(K::Stencil, S::F32, {2048, 2048},
           [](Request &R) {
             R.Filter = {7, 7};
             R.Separable = true;
             R.Border = "zero";
           })},
      {"3D 7-point stencil on a 256^3 grid of doubles", req(K::Stencil, S::F64, {256, 256, 256},
                                                            [](Request &R) {
                                                              R.Filter = {3, 3, 3};
                                                            })},
      {"3D 27-point stencil on a 128x128x128 grid with clamped borders",
       req(K::Stencil, S::F32, {128, 128, 128},
           [](Request &R) {
             R.Filter = {3, 3, 3};
           })},
      {"2D stencil of radius 2 on a 1024 by 1024 float grid", req(K::Stencil, S::F32, {1024, 1024},
                                                                  [](Request &R) {
                                                                    R.Filter = {5, 5};
                                                                  })},
      {"transpose a 4096 x 4096 float matrix", req(K::Transpose, S::F32, {4096, 4096})},
      {"transpose of a 8192\xC3\x97"
       "1024 double matrix",
       req(K::Transpose, S::F64, {8192, 1024})},
      {"softmax over 8192 rows of 1024 floats", req(K::RowSoftmax, S::F32, {8192, 1024})},
      {"gather 16M floats by index", req(K::Gather, S::F32, {16777216})},
      {"scatter 1M ints", req(K::Scatter, S::I32, {1048576})},
      {"histogram of 64M bytes with 256 bins", req(K::Histogram, S::U8, {67108864})},
      {"histogram of 16M uint32 into 64 bins",
       req(K::Histogram, S::U32, {16777216}, [](Request &R) { R.Bins = 64; })},
      {"128-bin histogram of 1,000,000 u8",
       req(K::Histogram, S::U8, {1000000}, [](Request &R) { R.Bins = 128; })},
  });
}

TEST(Description, Maps) {
  auto Map = [](const char *Op, int Inputs) {
    return [Op, Inputs](Request &R) {
      R.Operator = Op;
      R.Inputs = Inputs;
    };
  };
  expectParses({
      {"add two vectors of 1M floats", req(K::Map, S::F32, {1048576}, Map("a + b", 2))},
      {"add 3 vectors of 1M ints", req(K::Map, S::I32, {1048576}, Map("a + b + c", 3))},
      {"subtract two vectors of 1M floats", req(K::Map, S::F32, {1048576}, Map("a - b", 2))},
      {"elementwise max of two vectors of 1M doubles",
       req(K::Map, S::F64, {1048576}, Map("fmax(a, b)", 2))},
      {"saxpy over 16M floats", req(K::Map, S::F32, {16777216}, Map("2.0f * a + b", 2))},
      {"y = 2.5 * x + y over 16M floats", req(K::Map, S::F32, {16777216}, Map("2.5f * a + b", 2))},
      {"daxpy with alpha = 0.5 over 1M elements",
       req(K::Map, S::F64, {1048576}, Map("0.5 * a + b", 2))},
      {"y[i] = 3*x[i] + y[i] over 1M doubles",
       req(K::Map, S::F64, {1048576}, Map("3.0 * a + b", 2))},
      {"out = sqrt(a*a + b*b) for 4M floats",
       req(K::Map, S::F32, {4194304}, Map("sqrtf(a * a + b * b)", 2))},
      {"scale a vector of 1M floats by 3", req(K::Map, S::F32, {1048576}, Map("3.0f * a", 1))},
      {"multiply each element of 1M doubles by 0.25",
       req(K::Map, S::F64, {1048576}, Map("0.25 * a", 1))},
      {"square root of each element of 1M floats",
       req(K::Map, S::F32, {1048576}, Map("sqrtf(a)", 1))},
      {"elementwise exp of 4M floats", req(K::Map, S::F32, {4194304}, Map("expf(a)", 1))},
      {"relu of 1M halves", req(K::Map, S::F16, {1048576}, Map("fmaxf(a, 0.0f)", 1))},
      {"relu over 1M ints", req(K::Map, S::I32, {1048576}, Map("max(a, 0)", 1))},
      {"sigmoid of 1M doubles", req(K::Map, S::F64, {1048576}, Map("1.0 / (1.0 + exp(-a))", 1))},
  });
}

TEST(Description, SizesAreBinaryWithSuffixesAndDecimalInWords) {
  auto N = [](StringRef T) {
    Expected<Request> R = parseDescription(T);
    if (!R) {
      ADD_FAILURE() << T.str() << ": " << err(R.takeError());
      return int64_t(-1);
    }
    return R->Shape.empty() ? int64_t(-1) : R->Shape[0];
  };
  EXPECT_EQ(N("sum of 16777216 floats"), 16777216);
  EXPECT_EQ(N("sum of 16,777,216 floats"), 16777216);
  EXPECT_EQ(N("sum of 16_777_216 floats"), 16777216);
  EXPECT_EQ(N("sum of 64K floats"), 65536);
  EXPECT_EQ(N("sum of 64k floats"), 65536);
  EXPECT_EQ(N("sum of 64Mi floats"), 67108864);
  EXPECT_EQ(N("sum of 2G bytes"), int64_t(2) << 30);
  EXPECT_EQ(N("sum of 2Gi bytes"), int64_t(2) << 30);
  EXPECT_EQ(N("sum of 2 million floats"), 2000000);
  EXPECT_EQ(N("sum of 3 thousand floats"), 3000);
  EXPECT_EQ(N("sum of 1.5 billion bytes"), 1500000000);
  EXPECT_EQ(N("sum of 2^24 floats"), 16777216);
  EXPECT_EQ(N("sum of 10^6 floats"), 1000000);
  EXPECT_EQ(N("sum of 1<<20 floats"), 1048576);
  EXPECT_EQ(N("sum of 4096 x 4096 floats"), 16777216);
  EXPECT_EQ(N("sum of 256^3 floats"), 16777216);
}

TEST(Description, NotesSayWhatWasChosen) {
  Expected<ParsedDescription> P = parseDescriptionWithNotes("3D 7-point stencil on a 64^3 grid");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  std::string Notes = join(P->Notes, "\n");
  EXPECT_NE(Notes.find("no element type given: f32"), std::string::npos) << Notes;
  EXPECT_NE(Notes.find("a 7-point stencil in 3D reads the centre and its neighbours along the "
                       "axes; it is computed as a 3x3x3 filter (Filter {3, 3, 3}) whose "
                       "off-axis weights must be zero"),
            std::string::npos)
      << Notes;
  EXPECT_NE(Notes.find("(clamp)"), std::string::npos) << Notes;
  P = parseDescriptionWithNotes("saxpy over 1M floats");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  EXPECT_EQ(P->Notes, std::vector<std::string>{"no alpha given: y = 2.0 * x + y (say \"y = 2.5 "
                                               "* x + y\" or \"alpha = 2.5\" to choose)"});
  P = parseDescriptionWithNotes("sum of 64M floats");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  EXPECT_TRUE(P->Notes.empty());
}

TEST(Description, EveryExampleParses) {
  for (StringRef E : descriptionExamples()) {
    Expected<Request> R = parseDescription(E);
    EXPECT_TRUE(bool(R)) << E.str() << ": " << (R ? "" : err(R.takeError()));
  }
  EXPECT_EQ(descriptionExamples().size(), 11u);
}

std::string refusal(StringRef Text) {
  Expected<Request> R = parseDescription(Text);
  if (R)
    return "parsed: " + describe(*R);
  return err(R.takeError());
}

TEST(Description, Refusals) {
  EXPECT_EQ(refusal("frobnicate 10 floats"),
            "cannot tell the operation in \"frobnicate 10 floats\" (understood: 10 elements of "
            "f32; not understood: 'frobnicate'); say what to compute, for example: \"sum of "
            "64M floats\", \"sort 16M uint32 keys\", \"2D convolution with a 5x5 filter on a "
            "4096x4096 float input\", \"batched SGEMM, 256 matrices of 256x256\", \"row "
            "softmax over a 8192x1024 half matrix\"");
  EXPECT_EQ(refusal("sum of floats"),
            "cannot tell the size in \"sum of floats\" (understood: a reduction (+), f32 "
            "elements); say how many elements, for example: \"sum of 64M floats\"");
  EXPECT_EQ(refusal("sum of 64M quaternions"),
            "unknown element type 'quaternions' in \"sum of 64M quaternions\" (understood: "
            "67108864 (64M) elements; not understood: 'quaternions'); say one of: float, "
            "double, half, bf16, int, unsigned, int64, uint64, int16, uint16, int8, uint8 "
            "(bytes)");
  EXPECT_EQ(refusal("sum of 64M floats and sort 16M keys"),
            "two operations, a sort ('sort') and a reduction ('sum') in \"sum of 64M floats "
            "and sort 16M keys\" (understood: 67108864 (64M) elements of f32, 16777216 (16M) "
            "elements); ask for one");
  EXPECT_EQ(refusal("sum of 64M floats and 1M floats"),
            "two sizes ('64M' and '1M') in \"sum of 64M floats and 1M floats\" (understood: a "
            "reduction (+), 67108864 (64M) elements of f32, 1048576 (1M) elements); say one");
  EXPECT_EQ(refusal("sum of 0 floats"),
            "a size of 0 ('0') in \"sum of 0 floats\" (understood: a reduction (+), 0 elements "
            "of f32); sizes must be positive");
  EXPECT_EQ(refusal("sum of 2^70 floats"),
            "'2^70' overflows a 64-bit size in \"sum of 2^70 floats\" (understood: a reduction "
            "(+), f32 elements); sizes go up to 2^63 - 1");
  EXPECT_EQ(refusal("sum of 99999999999999999999 floats").substr(0, 50),
            "'99999999999999999999' overflows a 64-bit size in ");
  EXPECT_EQ(refusal("sum of 4G x 4G x 4G floats").substr(0, 45),
            "'4G x 4G x 4G' has more than 2^63 - 1 element");
  // Rows and columns each in range, their product not.
  EXPECT_EQ(refusal("sum of 4G rows of 4G columns of floats").substr(0, 54),
            "4294967296 x 4294967296 has more than 2^63 - 1 element");
  EXPECT_EQ(refusal("2D convolution with a 4x4 filter on a 4096x4096 float input"),
            "a 4x4 filter: a stencil needs an odd extent on every axis (2r + 1 points for "
            "radius r) in \"2D convolution with a 4x4 filter on a 4096x4096 float input\" "
            "(understood: a stencil, a 4x4 filter, 4096 x 4096 elements of f32); say 3x3 or "
            "5x5, for example");
  EXPECT_EQ(refusal("2D convolution with a 9x9 filter on a 4x4 float input"),
            "the 9x9 filter is larger than the 4x4 input in \"2D convolution with a 9x9 "
            "filter on a 4x4 float input\" (understood: a stencil, a 9x9 filter, 4 x 4 "
            "elements of f32); use a smaller filter or a larger input");
  EXPECT_EQ(refusal("sum of 64M floats and doubles"),
            "two element types ('floats' and 'doubles') in \"sum of 64M floats and doubles\" "
            "(understood: a reduction (+), 67108864 (64M) elements); say one");
  EXPECT_EQ(refusal("HGEMM 512x512x512 in bf16").substr(0, 45),
            "two element types ('HGEMM' and 'bf16') in \"HG");
  EXPECT_EQ(refusal("sum of squares of 1M floats"),
            "two operations, 'sum' and 'squares' in \"sum of squares of 1M floats\" "
            "(understood: an elementwise map, 1048576 (1M) elements of f32); ask for one");
  EXPECT_EQ(refusal("sum of 64M floats, thrice"),
            "cannot read 'thrice' in \"sum of 64M floats, thrice\" (understood: a reduction "
            "(+), 67108864 (64M) elements of f32; not understood: 'thrice'); leave it out or "
            "say it another way, for example: \"sum of 64M floats\"");
  EXPECT_EQ(refusal("mean of 1M floats"),
            "'mean': a mean is not an operation of the templates in \"mean of 1M floats\" "
            "(understood: 1048576 (1M) elements of f32); ask for a sum and divide it by n");
  EXPECT_EQ(refusal("batched SGEMM of 256x256"),
            "a batched GEMM without a count in \"batched SGEMM of 256x256\" (understood: a "
            "GEMM, 256 x 256 elements of f32); say how many: \"batched SGEMM, 256 matrices of "
            "256x256\"");
  EXPECT_EQ(refusal("GEMM of 1024x512 floats"),
            "cannot tell M, N and K from '1024x512' in \"GEMM of 1024x512 floats\" "
            "(understood: a GEMM, 1024 x 512 elements of f32); say \"M=1024 N=512 K=256\" or "
            "\"1024x512x256\" (M x N x K)");
  EXPECT_EQ(refusal("transpose 16M floats"),
            "a transpose takes rows x columns, not 1 extent in \"transpose 16M floats\" "
            "(understood: a transpose, 16777216 (16M) elements of f32); say \"transpose a "
            "4096x4096 float matrix\"");
  EXPECT_EQ(refusal("sort 16M floats ascending, descending"),
            "two orders ('ascending' and 'descending') in \"sort 16M floats ascending, "
            "descending\" (understood: a sort, 16777216 (16M) elements of f32); say one");
  EXPECT_EQ(refusal("sum of 64M floats descending"),
            "'descending' does not apply to a reduction (+) in \"sum of 64M floats "
            "descending\" (understood: a reduction (+), 67108864 (64M) elements of f32); leave "
            "it out");
  EXPECT_EQ(refusal("exp of 1M ints"),
            "'exp' of i32 elements in \"exp of 1M ints\" (understood: an elementwise map, "
            "1048576 (1M) elements of i32); say a floating-point type");
  EXPECT_EQ(refusal("scale 1M ints by 2.5").substr(0, 53),
            "'2.5' is not a whole number and the elements are i32 ");
  EXPECT_EQ(refusal("subtract 1M floats"),
            "a reduction combines with +, *, max or min, not '-' ('subtract') in \"subtract 1M "
            "floats\" (understood: 1048576 (1M) elements of f32); to subtract two vectors say "
            "\"subtract two vectors of 1M floats\"");
  EXPECT_EQ(refusal("3D 6-point stencil on a 64x64x64 grid").substr(0, 95),
            "a 6-point stencil in 3D is neither a box ((2r + 1)^3 points) nor a star (2r * 3 + "
            "1 points) in ");
  EXPECT_EQ(refusal("3D 7-point stencil on a 256x256 grid").substr(0, 53),
            "a 3D stencil over a 256x256 input in \"3D 7-point sten");
  EXPECT_EQ(refusal("2D stencil on a 1000x1000 grid").substr(0, 23), "cannot tell the filter ");
  EXPECT_EQ(refusal("a 5x5 filter on 16M floats").substr(0, 40),
            "a 5x5 filter on a 16777216 input in \"a 5");
  EXPECT_EQ(refusal("softmax over columns of a 1024x1024 float matrix").substr(0, 40),
            "a softmax over columns ('columns') in \"s");
  EXPECT_EQ(refusal("sum of 2.5 floats").substr(0, 31), "'2.5' is not a whole number in ");
  EXPECT_EQ(refusal("matrix multiply 1024x512 times 256x256 doubles").substr(0, 54),
            "'1024x512' times '256x256': the inner extents differ i");
  EXPECT_EQ(refusal("histogram of 1M floats into 0 bins").substr(0, 20), "a size of 0 ('0') in");
  EXPECT_EQ(refusal("sort 16M uint32 keys with float values and int values").substr(0, 36),
            "two value types ('float' and 'int') ");
  EXPECT_EQ(refusal("").substr(0, 29), "cannot tell the operation in ");
}

} // namespace
