#define TILE 128
