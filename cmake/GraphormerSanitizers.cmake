# GRAPHORMER_SANITIZE=ON instruments our code with ASan + UBSan. LibTorch, OpenMP and OpenBLAS are
# not instrumented; their exit-time leak reports are suppressed by library in tests/lsan.supp.
if(GRAPHORMER_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
