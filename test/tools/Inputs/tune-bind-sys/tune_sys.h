// Stands for a toolkit header: found through -isystem, never written.
#define SUM_SYS_THREADS 256
