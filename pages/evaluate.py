import streamlit as st

st.title("Evaluate")
st.info("This page is being built.")
