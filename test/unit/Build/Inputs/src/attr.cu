__attribute__((error("do not call"))) void forbidden();
int main() { forbidden(); return 0; }
