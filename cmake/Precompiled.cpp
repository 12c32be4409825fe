// The translation unit that precompiles cmake/Precompiled.h (FORGE_PCH).
