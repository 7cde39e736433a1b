# GRAPHORMER_SANITIZE=ON instruments our code with ASan + UBSan. LibTorch, OpenMP and OpenBLAS are
# not instrumented; their exit-time leak reports are suppressed by library in tests/lsan.supp.
# A sanitizer build optimises at -O1 with line tables only (-g1): the level ASan recommends, and
# about half the compile time of -O2 -g on the LibTorch translation units (trainer.cpp: 17.9 s vs
# 33.4 s), which is most of what CI spends; reports still name functions, files and lines.
if(GRAPHORMER_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O1 -g1 -DNDEBUG")
  set(CMAKE_C_FLAGS_RELWITHDEBINFO "-O1 -g1 -DNDEBUG")
endif()
