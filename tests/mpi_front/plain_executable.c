/* A program built as an ordinary executable (no -shared): RankPrograms refuses it. */
int main(int argc, char** argv) { return argc + (argv != 0); }
