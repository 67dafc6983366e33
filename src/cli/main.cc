// dlsim command-line entry point. The only place that prints and exits.
#include <cstdio>

int main(int argc, char** argv) {
  std::printf("dlsim 0.1.0\n");
  return 0;
}
