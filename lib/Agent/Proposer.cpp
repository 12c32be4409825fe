//===- Agent/Proposer.cpp -------------------------------------------------===//
#include "forge/Agent/Proposer.h"

forge::agent::Proposer::~Proposer() = default;
