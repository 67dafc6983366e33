# dlsim-calibrate's host-only code (keys, JSON, record store, measuring
# loop, statistics, sweeps, datasheet parsing) and its GPU-free tests. No
# CUDA: included by calibrate/CMakeLists.txt, and by tests/CMakeLists.txt
# where CUDA is absent, so CI (no CUDA) still runs the record store's
# kill-and-resume test.
set(dlcal_dir ${CMAKE_CURRENT_LIST_DIR})
# The kernel keys' module (src/kernel, standard library and src/util only)
# is compiled in, not copied: calibrate parses and checks keys as dlsim does.
file(GLOB dlcal_kernel_srcs CONFIGURE_DEPENDS ${dlcal_dir}/../src/kernel/*.cc)
add_library(dlcal_host STATIC
  ${dlcal_kernel_srcs} ${dlcal_dir}/../src/util/status.cc ${dlcal_dir}/../src/util/dtype.cc
  ${dlcal_dir}/../src/util/optimizer.cc
  ${dlcal_dir}/src/family.cc ${dlcal_dir}/src/key.cc ${dlcal_dir}/src/json.cc ${dlcal_dir}/src/record_store.cc
  ${dlcal_dir}/src/stats.cc ${dlcal_dir}/src/sweeps.cc ${dlcal_dir}/src/machine_yaml.cc
  ${dlcal_dir}/src/records.cc ${dlcal_dir}/src/progress.cc ${dlcal_dir}/src/run_loop.cc
  ${dlcal_dir}/src/profile.cc)
target_include_directories(dlcal_host PUBLIC ${dlcal_dir}/src ${dlcal_dir}/../include
                                      PRIVATE ${dlcal_dir}/../src)  # src/kernel's internal headers
target_compile_options(dlcal_host PRIVATE -Wall -Wextra)

add_executable(dlsim-calibrate-host-test ${dlcal_dir}/tests/host_test.cc)
target_link_libraries(dlsim-calibrate-host-test PRIVATE dlcal_host)
target_compile_options(dlsim-calibrate-host-test PRIVATE -Wall -Wextra)
add_test(NAME calibrate_host COMMAND dlsim-calibrate-host-test
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

add_executable(dlsim-calibrate-fake-run ${dlcal_dir}/tests/fake_run.cc)
target_link_libraries(dlsim-calibrate-fake-run PRIVATE dlcal_host)
add_executable(dlsim-calibrate-resume-test ${dlcal_dir}/tests/resume_test.cc)
target_link_libraries(dlsim-calibrate-resume-test PRIVATE dlcal_host)
add_test(NAME calibrate_resume
         COMMAND dlsim-calibrate-resume-test $<TARGET_FILE:dlsim-calibrate-fake-run>)
set_tests_properties(calibrate_resume PROPERTIES TIMEOUT 120)
