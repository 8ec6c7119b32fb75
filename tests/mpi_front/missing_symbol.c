/* A program that calls a function nobody defines (an MPI function vmc does not have):
 * RankPrograms' RTLD_NOW refuses it at load time. */
int vmc_nobody_defines_this(void);
int main(int argc, char** argv) { return vmc_nobody_defines_this() + argc + (argv != 0); }
