/* A 1 MB program for tests/mpi_front/measure_load.cpp: a 1 MB initialized array (.data);
 * main writes one int a page (as a program that uses its data would). */
#define BIG_INTS (1 << 18)
int big[BIG_INTS] = {[0 ... BIG_INTS - 1] = 1};
int main(int argc, char** argv) {
  int sum = argc + (argv != 0);
  for (int i = 0; i < BIG_INTS; i += 1024) sum += ++big[i];
  return sum;
}
