"""Links that own the parameters of loss functions: CRF1d, NegativeSampling."""
