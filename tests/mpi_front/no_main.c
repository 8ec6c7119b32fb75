/* A shared object without main: RankPrograms refuses it. */
int not_main(int argc, char** argv) { return argc + (argv != 0); }
