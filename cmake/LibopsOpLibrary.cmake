# libops_add_op_library(<name> <source>...): a shared library of ops written
# with libops' op macros (CUSTOM_OP_IMPL, DECLARE_SHAPE_FN, DECLARE_TYPES,
# DECLARE_ARGS; libops/ops/declarable_op.h), built outside libops' tree. Its
# ops register when it is loaded: ops_load_op_library("lib<name>.so") in C,
# `ops-run --op-library`, libops.load_op_library in Python. An ONNX node of a
# custom domain whose op type names one of them runs it.
function(libops_add_op_library name)
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE libops::libops)
  target_compile_features(${name} PRIVATE cxx_std_20)
  # The ops' registration runs from static constructors of the library's
  # objects; a module keeps them all (nothing is dropped as unused).
  set_target_properties(${name} PROPERTIES PREFIX "lib" CXX_EXTENSIONS OFF)
endfunction()
