// Predicted class of each sample: the position of its largest logit (the
// first of equal ones), one thread per sample.
__global__ void predict(const float *logits, int *label, int batch, int classes) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < batch) {
    const float *z = &logits[s * classes];
    int arg = 0;
    float top = z[0];
    for (int j = 1; j < classes; ++j) {
      if (z[j] > top) {
        top = z[j];
        arg = j;
      }
    }
    label[s] = arg;
  }
}
